"""How memlib reaches a store on object storage (s3://, gs://, az://): its storage options.

Credentials, region and endpoint come first from the standard variables each SDK reads
(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL,
AWS_PROFILE ...), which Lance reads itself; then from the `[storage_options]` section of
memlib's config file, whose keys are Lance's (https://lancedb.com/docs/storage/), for
example

    [storage_options]
    aws_endpoint = "https://minio.internal:9000"
    aws_region = "eu-west-1"

(memlib/settings.py reads the file once, with every other setting). An
endpoint over plain http (a server on loopback or a private network) is allowed without
further ado. Secrets are passed on, never printed: `describe` names the keys only.
"""

from __future__ import annotations

import os

from memlib.settings import Settings

SECRET_WORDS = ("secret", "token", "password", "key_id", "access_key", "credential", "sas", "connection_string")
ENDPOINT_KEYS = ("aws_endpoint", "aws_endpoint_url", "endpoint", "endpoint_url")


def is_local(uri: str) -> bool:
    """A store on this machine's file system (a path or file://), not object storage."""
    return "://" not in uri or uri.startswith("file://")


def storage_options(uri: str, settings: Settings) -> dict[str, str]:
    """What Lance (and DuckDB's secret, pyarrow, Daft) need to reach `uri`: the config's
    options, the endpoint of the environment when the config names none, and allow_http when
    the endpoint is plain http. {} for a local store."""
    if is_local(uri):
        return {}
    options = dict(settings.storage_options)
    if endpoint(options) is None and settings.aws_endpoint:
        options["aws_endpoint"] = settings.aws_endpoint
    if (endpoint(options) or "").startswith("http://"):
        options.setdefault("allow_http", "true")
    return options


def endpoint(options: dict[str, str]) -> str | None:
    """The S3 endpoint `options` name (None: AWS itself)."""
    return next((options[k] for k in ENDPOINT_KEYS if k in options), None)


def describe(options: dict[str, str]) -> str:
    """The options for a message or a report: secret values masked."""
    return ", ".join(f"{k}={'***' if any(w in k.lower() for w in SECRET_WORDS) else v}"
                     for k, v in sorted(options.items())) or "none"


def filesystem(uri: str, settings: Settings):
    """(pyarrow filesystem, path) for `uri`, with the same options Lance is given: for
    measuring what a store takes where it lives. Local paths too."""
    from pyarrow import fs

    if "://" not in uri or uri.startswith("file://"):
        return fs.LocalFileSystem(), os.path.abspath(uri.removeprefix("file://"))
    if not uri.startswith(("s3://", "s3a://")):
        return fs.FileSystem.from_uri(uri)
    s3 = s3_settings(storage_options(uri, settings))
    names = {"key_id": "access_key", "secret": "secret_key", "token": "session_token", "region": "region"}
    kwargs = {names[k]: v for k, v in s3.items() if k in names}
    if "endpoint" in s3:
        scheme, _, host = s3["endpoint"].partition("://")
        kwargs.update(endpoint_override=host.rstrip("/"), scheme=scheme)
    return fs.S3FileSystem(**kwargs), uri.split("://", 1)[1]


def s3_settings(options: dict[str, str]) -> dict[str, str]:
    """The S3 settings in Lance's `options`, under one name each for the other readers of a
    store (pyarrow, Daft): key_id, secret, token, region, endpoint, allow_http. What is not
    given is left to the environment."""
    given = {"key_id": ("aws_access_key_id", "access_key_id"),
             "secret": ("aws_secret_access_key", "secret_access_key"),
             "token": ("aws_session_token", "session_token"),
             "region": ("aws_region", "region"),
             "allow_http": ("allow_http",)}
    settings = {name: options[k] for name, keys in given.items() for k in keys if k in options}
    if (where := endpoint(options)) is not None:
        settings["endpoint"] = where
    return settings


def tree_bytes(uri: str, settings: Settings) -> int:
    """What everything under `uri` takes where it is stored (0 if nothing is there)."""
    from pyarrow import fs

    filesystem_, path = filesystem(uri, settings)
    try:
        infos = filesystem_.get_file_info(fs.FileSelector(path, recursive=True, allow_not_found=True))
    except FileNotFoundError:
        return 0
    return sum(i.size or 0 for i in infos if i.type == fs.FileType.File)
