"""An S3-compatible server on loopback for tests and benchmarks: moto's (`moto[server]`, a
dev dependency), run as its own process, so memlib talks to it over HTTP exactly as it talks
to S3. Never used by memlib itself.

Lance commits a version by writing its manifest with `If-None-Match: *`, which S3 refuses
(412) when another writer created that version first. moto serves requests on threads and
checks the header apart from the write, so two writers racing for one version could both be
told they won, and one commit was silently lost (a CI run of test_s3 lost one row of 161).
`serve` runs moto's app with every conditional write (If-None-Match or If-Match) as one step
under a lock, as S3 itself does; everything else stays concurrent.

    python -m memlib.testing HOST PORT [SWITCH_INTERVAL]
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from contextlib import contextmanager
from typing import Iterator

# what a user's environment holds for a real bucket; the secret is distinctive so that a test
# can prove it is never printed or written
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "memlib-test", "AWS_SECRET_ACCESS_KEY": "memlib-test-secret",
               "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1"}


class Unavailable(RuntimeError):
    """The server cannot run here (its package is missing, or it did not start)."""


@contextmanager
def s3_server(timeout: float = 30, switch_interval: float | None = None) -> Iterator[str]:
    """Run moto's S3 server (`serve`) on a free loopback port; yields its endpoint
    (http://127.0.0.1:N). `switch_interval`: the server's thread switch interval in seconds
    (sys.setswitchinterval), made tiny by the test that races conditional writes."""
    missing = [name for name in ("moto", "boto3", "flask") if importlib.util.find_spec(name) is None]
    if missing:
        raise Unavailable(f"{', '.join(missing)} not installed (pip install -e '.[dev]')")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    extra = [] if switch_interval is None else [repr(switch_interval)]
    server = subprocess.Popen([sys.executable, "-m", "memlib.testing", "127.0.0.1", str(port), *extra],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=1)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise Unavailable(f"moto's S3 server did not start on {endpoint}") from None
                time.sleep(0.1)
        yield endpoint
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def new_bucket(endpoint: str, prefix: str = "memlib") -> str:
    """A new, empty bucket on the server; its name."""
    import boto3

    bucket = f"{prefix}-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=endpoint, **_boto_credentials()).create_bucket(Bucket=bucket)
    return bucket


def _boto_credentials() -> dict[str, str]:
    return {"aws_access_key_id": CREDENTIALS["AWS_ACCESS_KEY_ID"],
            "aws_secret_access_key": CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            "region_name": CREDENTIALS["AWS_REGION"]}


def atomic_conditional_writes(app):
    """A WSGI app that runs each conditional write of `app` (a PUT or POST with If-None-Match
    or If-Match) whole under one lock: the check and the write are one step, as on S3."""
    lock = threading.Lock()

    def wrapped(environ, start_response):
        conditional = environ.get("REQUEST_METHOD") in ("PUT", "POST") and (
            "HTTP_IF_NONE_MATCH" in environ or "HTTP_IF_MATCH" in environ)
        if not conditional:
            return app(environ, start_response)
        with lock:
            return list(app(environ, start_response))

    return wrapped


def serve(host: str, port: int) -> None:
    """moto's S3 server (as `python -m moto.server` runs it) with atomic conditional writes."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import run_simple

    app = atomic_conditional_writes(DomainDispatcherApplication(create_backend_app))
    run_simple(host, port, app, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    if len(sys.argv) > 3:
        sys.setswitchinterval(float(sys.argv[3]))
    serve(sys.argv[1], int(sys.argv[2]))
