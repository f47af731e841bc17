"""The kernels a report run executes its notebooks in, through jupyter_client's and
papermill's public APIs: `AsyncKernelManager.start_kernel(stderr=...)` to keep each kernel's
log, a blocking client for the warm-up and reset cells, `papermill.execute_notebook(km=...)`
for the reports, and `request_shutdown`/`finish_shutdown`/`cleanup_resources` to stop it.

A kernel runs reports one after another, so the kernel start and the imports (about 4 s on
two cores) are paid once per worker, not once per report. Each report starts from an empty
namespace, its errors are the ones the kernel logs while it runs, and a kernel that died is
replaced before the next report.
"""

from __future__ import annotations

import os
import queue
import shutil
import sys
import tempfile
import threading
from pathlib import Path

# What a kernel's stderr may say that means its report is not to be trusted.
KERNEL_ERRORS = ("ERROR", "Traceback", "Exception")
# Modules the runner and its kernels would import and never use. jsonschema (under nbformat
# and altair) checks the "iri" string format with rfc3987-syntax when it is installed
# (JupyterLab's jupyter-events asks for it), and that module compiles a Lark grammar as it
# is imported: 1.0-1.4 s in each of the run's three processes, for a check no report asks
# for. Marked missing there, so jsonschema leaves that one format unchecked.
UNUSED_IMPORTS = ("rfc3987_syntax",)


def skip_unused_imports() -> None:
    """Mark UNUSED_IMPORTS missing in this process (the runner's, and first in each kernel)."""
    for module in UNUSED_IMPORTS:
        sys.modules.setdefault(module, None)


def kernel_error(name: str, log: Path, since: int = 0) -> str | None:
    """The first line a kernel wrote to its stderr after byte `since` (while report `name`
    ran) that reports an error, as the report's error."""
    try:
        with open(log, "rb") as f:
            f.seek(since)
            lines = f.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if any(word in line for word in KERNEL_ERRORS):
            return f"{name}: its kernel logged an error: {line.strip()[:200]}"
    return None


class Kernel:
    """One kernel of a run, started on first use and writing its stderr to `log`."""

    # What every report imports (not UNUSED_IMPORTS), with the garbage collector off
    # meanwhile (0.6 s less); then the imported objects leave its view (gc.freeze), so the
    # collection in each %reset takes milliseconds, not 0.3 s.
    WARM = ("import gc; gc.disable()\nfrom memlib.analytics.report_kernels import skip_unused_imports\n"
            "skip_unused_imports()\nfrom memlib.analytics import notebook, report_data\n"
            "gc.freeze(); gc.enable()")
    FIRST_CELL = "\nget_ipython().execution_count = 1"  # the next report's cells count from 1

    def __init__(self, name: str, log: Path):
        self.name, self.log, self.km = name, log, None
        self.sockets: str | None = None  # the directory of the live kernel's socket files
        self.starting = threading.Lock()

    def _transport(self) -> dict:
        """The kernel's sockets as files in a directory of its own where the system has them.
        Over TCP, jupyter_client picks ports that are free when it looks and the kernel binds
        them later, so another process (another run's kernel) can take one in between: the
        kernel then logs "ZMQError: Address already in use" with a traceback."""
        if os.name != "posix":
            return {}
        if self.sockets:  # a start that failed left its directory
            shutil.rmtree(self.sockets, ignore_errors=True)
        self.sockets = tempfile.mkdtemp(prefix="memlib-kernel-")
        return {"transport": "ipc", "ip": os.path.join(self.sockets, "k")}

    def _started(self):
        """The kernel manager of a live kernel: this one's, or a new one's."""
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

        if self.km is not None and not run_sync(self.km.is_alive)():
            self.close()
        with self.starting:  # close() from another thread waits for a start to finish
            if self.km is None:
                km = AsyncKernelManager(kernel_name=self.name, **self._transport())
                with open(self.log, "ab") as log:  # the kernel process keeps its own copy
                    run_sync(km.start_kernel)(stderr=log)
                self.km = km
            return self.km

    def run(self, source: str, output: str, parameters: dict) -> None:
        """Execute the notebook `source` into `output` with `parameters` (papermill)."""
        import papermill

        papermill.execute_notebook(source, output, kernel_name=self.name, km=self._started(), progress_bar=False,
                                   request_save_on_cell_execute=False, log_output=False, cwd=os.getcwd(),
                                   parameters=parameters)

    def cell(self, code: str, timeout: float = 120) -> None:
        """Run `code` in the kernel through a shell channel of its own, not papermill (a
        papermill run of one cell costs about 0.6 s): the request waits in the kernel's queue
        while it starts, and the reply says how it went."""
        from jupyter_core.utils import run_sync

        try:
            km = self._started()
            client = km.blocking_client()
            client.start_channels(iopub=False, stdin=False, hb=False, control=False)
            try:
                sent, waited = client.execute(code, silent=True), 0.0
                while True:
                    try:
                        reply = client.get_shell_msg(timeout=1)
                    except queue.Empty:
                        waited += 1
                        if waited > timeout or not run_sync(km.is_alive)():
                            raise RuntimeError("the kernel did not answer") from None
                        continue
                    if reply["parent_header"].get("msg_id") == sent:
                        break
            finally:
                client.stop_channels()
            if reply["content"]["status"] != "ok":
                raise RuntimeError(reply["content"].get("evalue", "failed"))
        except Exception:  # the next report starts a fresh kernel, or reports the failure
            self.close()

    def warm(self) -> None:
        self.cell(self.WARM + self.FIRST_CELL)

    def reset(self) -> None:
        self.cell("%reset -f" + self.FIRST_CELL)

    def logged(self) -> int:
        return self.log.stat().st_size if self.log.exists() else 0

    def close(self) -> None:
        """Ask the kernel to shut down and wait for it (killed if it does not go). Not
        `shutdown_kernel`, which interrupts the kernel first: one idling in its event loop
        then logs "ERROR | KeyboardInterrupt caught in kernel", and an ERROR in the log is
        to mean a real one."""
        from jupyter_core.utils import run_sync

        with self.starting:
            km, self.km = self.km, None
            sockets, self.sockets = self.sockets, None
        if km is not None:
            try:
                run_sync(km.request_shutdown)()
                run_sync(km.finish_shutdown)()
            except Exception:  # already gone
                pass
            try:
                run_sync(km.cleanup_resources)()
            except Exception:
                pass
        if sockets:  # also when the kernel did not start
            shutil.rmtree(sockets, ignore_errors=True)
