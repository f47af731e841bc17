"""An S3-compatible server on loopback for tests and benchmarks: moto's (`moto[server]`, a
dev dependency), run as its own process, so memlib talks to it over HTTP exactly as it talks
to S3. Never used by memlib itself."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
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
def s3_server(timeout: float = 30) -> Iterator[str]:
    """Run moto's S3 server on a free loopback port; yields its endpoint (http://127.0.0.1:N)."""
    missing = [name for name in ("moto", "boto3", "flask") if importlib.util.find_spec(name) is None]
    if missing:
        raise Unavailable(f"{', '.join(missing)} not installed (pip install -e '.[dev]')")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
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
