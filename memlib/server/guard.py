"""What reaches the memory server's routes: every request body read whole, bounded in size
and in nesting before anything parses it, checked to be UTF-8, and taken as JSON whatever
type the client declared (curl's `-d` says form data); every refusal here, and HTTP's own
(a request the HTTP parser cannot read), is memlib's error body, `{"error": "..."}`.
"""

from __future__ import annotations

import json
import re

MAX_BODY = 8 * 2**20  # bytes of one request body
MAX_DEPTH = 64        # arrays and objects inside one another in one body
BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})
# a JSON string (escapes kept whole) or a byte of structure: enough to follow nesting and keys
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}:,]')
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


async def send_error(send, status: int, message: str, headers: tuple = ()) -> None:
    """memlib's error body, sent from plain ASGI."""
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> str | None:
    """Where `body` nests arrays and objects more than `limit` deep (a path such as
    `payload[0][0]...`), or None. A body with no more brackets than the limit is not read."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return None
    import numpy as np

    # the brackets outside strings, then their running depth, in C: the path is found only
    # for a body that does nest too deep
    structure = np.frombuffer(_STRING.sub(b'""', body).translate(None, _NOT_BRACKETS), np.uint8)
    if not len(structure) or np.cumsum(np.where((structure == 91) | (structure == 123), 1, -1)).max() <= limit:
        return None
    frames: list[list] = []  # per open container: [b"{", its current key] or [b"[", its current index]
    pending = None  # the last string read in an object: its key once a colon follows
    for found in _TOKENS.finditer(body):
        token = found.group()
        if token in (b"[", b"{"):
            if len(frames) == limit:
                return _render(frames)
            frames.append([token, None if token == b"{" else 0])
        elif token in (b"]", b"}"):
            if frames:
                frames.pop()
        elif not frames:
            continue
        elif token == b"," and frames[-1][0] == b"[":
            frames[-1][1] += 1
        elif token == b":":
            frames[-1][1] = pending
        elif token.startswith(b'"'):
            pending = token[1:-1].decode("utf-8", "replace")
    return None


def _render(frames: list[list], shown: int = 8) -> str:
    """`payload[0][0]...`: the keys and indexes leading to a container (the first few)."""
    parts = [f"[{at}]" if kind == b"[" else f".{at}" for kind, at in frames if at is not None]
    return ("".join(parts[:shown]).lstrip(".") + ("..." if len(parts) > shown else "")) or "(body)"


class BodyGuard:
    """ASGI middleware: reads a request's body (refusing it past MAX_BODY, declared or sent),
    refuses one that is not UTF-8 or nests past MAX_DEPTH, and hands the routes the same
    bytes; under `/v1` a body is JSON whatever its declared content type."""

    def __init__(self, app, json_prefix: str = "/v1"):
        self.app, self.json_prefix = app, json_prefix

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in BODILESS:
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            what = "is over 8 MiB" if length.isdigit() else f"has a Content-Length that is no number ({length[:40]!r})"
            return await send_error(send, 413 if length.isdigit() else 400, f"the body {what}",
                                    ((b"connection", b"close"),))
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                return await send_error(send, 413, "the body is over 8 MiB", ((b"connection", b"close"),))
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body:
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as exc:
                return await send_error(send, 400, f"the body is not UTF-8 text (byte {exc.start}): send JSON "
                                                   "as UTF-8")
            deep = too_deep(body)
            if deep is not None:
                return await send_error(send, 400, f"{deep}: nested more than {MAX_DEPTH} levels deep")
            if scope["path"].startswith(self.json_prefix):
                declared = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
                if declared != b"application/json":
                    scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != b"content-type"]
                             + [(b"content-type", b"application/json")]}
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def h11_protocol():
    """uvicorn's HTTP/1.1 protocol answering a request it cannot parse (a malformed header,
    a Content-Length that is no number) with memlib's error body instead of plain text."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        def send_400_response(self, msg: str) -> None:
            import h11

            body = json.dumps({"error": "the request is not valid HTTP/1.1 (a header or the body's framing "
                                        "cannot be read)"}).encode()
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                       (b"connection", b"close")]
            self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers, reason=b"Bad Request")))
            self.transport.write(self.conn.send(h11.Data(data=body)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
            self.transport.close()

    return Protocol
