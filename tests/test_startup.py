"""What a fresh process imports before it does anything: `import memlib` loads no table engine
and no model, the CLI's help loads no pydantic model, and the namespace client `lancedb`
imports at start-up (which memlib never calls) stays unrun until a caller uses it. Each runs
in a child process, whose modules are its own."""

from __future__ import annotations

import json
import subprocess
import sys


def imported_after(code: str) -> dict:
    """Run `code` in a fresh interpreter; it prints a JSON object, returned here."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_memlib_loads_neither_lance_nor_the_models():
    seen = imported_after("import json, sys, memlib\n"
                          "print(json.dumps({m: m in sys.modules for m in "
                          "('lancedb', 'pyarrow', 'memlib.models', 'onnxruntime', 'duckdb')}))")
    assert seen == {"lancedb": False, "pyarrow": False, "memlib.models": False, "onnxruntime": False,
                    "duckdb": False}


def test_drawing_the_clis_options_loads_no_memory_model():
    seen = imported_after("import json, sys\nfrom click.testing import CliRunner\nfrom memlib.cli import cli\n"
                          "r = CliRunner().invoke(cli, ['add', '--help'])\n"
                          "print(json.dumps({'ok': r.exit_code == 0 and '--title' in r.output, "
                          "'models': 'memlib.models' in sys.modules, 'lancedb': 'lancedb' in sys.modules}))")
    assert seen == {"ok": True, "models": False, "lancedb": False}


def test_the_namespace_client_waits_until_used_and_is_whole_when_it_is():
    code = ("import json, sys, memlib, lancedb\n"
            "client = sys.modules['lance_namespace_urllib3_client']\n"
            "unrun = 'TableApi' not in vars(client) and '__getattr__' in vars(client)\n"
            "from lance_namespace_urllib3_client import TableApi, ApiClient\n"
            "import lance_namespace_urllib3_client.api as api\n"
            "print(json.dumps({'unrun_at_start': unrun, 'whole_after': TableApi.__name__ == 'TableApi' "
            "and 'ApiClient' in vars(client) and '__getattr__' not in vars(client) and hasattr(api, 'TableApi')}))")
    assert imported_after(code) == {"unrun_at_start": True, "whole_after": True}


def test_a_store_opens_and_searches_with_the_client_deferred(tmp_path):
    code = ("import json, sys, memlib\nfrom memlib import MemoryStore\n"
            "from memlib.embeddings import HashEmbedder\n"
            f"s = MemoryStore.open({str(tmp_path / 'store')!r}, embedder=HashEmbedder())\n"
            "s.add([{'kind': 'project', 'name': 'price cache', 'description': 'a cache of prices'}])\n"
            "hits = s.search('price cache', k=1)\n"
            "client = sys.modules['lance_namespace_urllib3_client']\n"
            "print(json.dumps({'found': [h.memory.name for h in hits], "
            "'unrun': '__getattr__' in vars(client)}))")
    assert imported_after(code) == {"found": ["price cache"], "unrun": True}
