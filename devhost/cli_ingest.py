"""The ``ingest`` command: files and folders into a named collection, through the public API.

``python -m devhost ingest PATH... --collection NAME`` finds the caller's collection of
that name or creates it, uploads the files (folders recurse; hidden files are skipped)
in batches of ``COLLECTION_MAX_FILES_PER_REQUEST``, has the host fetch the URLs
(``--crawl-depth`` follows their links on the same site), follows the collection's
events until nothing is queued (``cli_follow.py``) and prints one line per document:
ingested with its chunk count, or failed with the reason.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from devhost.cli_follow import wait_ingested
from devhost.cli_research import Api, CommandError
from devhost.cli_view import console
from shared.core.limits import COLLECTION_MAX_FILES_PER_REQUEST

UPLOAD_HEADERS = {"X-Requested-With": "devhost-cli"}


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    ingest = sub.add_parser(
        "ingest", parents=[common], help="upload files or folders into a collection"
    )
    ingest.add_argument("paths", nargs="+", metavar="PATH")
    ingest.add_argument("--collection", required=True, help="its name (created if needed)")
    ingest.add_argument(
        "--url", help="use a running host, e.g. http://127.0.0.1:7071/api (as `make serve` prints)"
    )
    ingest.add_argument("--timeout", type=float, default=600)
    ingest.add_argument(
        "--crawl-depth", type=int, default=0, choices=[0, 1, 2], help="links to follow from URLs"
    )


def files_of(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        if is_url(raw):
            continue
        path = Path(raw)
        if path.is_dir():
            found += sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and not any(part.startswith(".") for part in p.parts)
            )
        elif path.is_file():
            found.append(path)
        else:
            raise CommandError(f"{raw}: no such file or folder")
    return found


def is_url(raw: str) -> bool:
    return raw.startswith(("http://", "https://"))


def run_ingest(api: Api, args: argparse.Namespace) -> int:
    files, urls = files_of(args.paths), [p for p in args.paths if is_url(p)]
    if not files and not urls:
        raise CommandError("no files to ingest")
    collection_id = _collection(api, args.collection)
    if urls:
        body = {"urls": urls, "crawl_depth": args.crawl_depth}
        api.call("POST", f"/collections/{collection_id}/documents", json=body)
    for start in range(0, len(files), COLLECTION_MAX_FILES_PER_REQUEST):
        batch = files[start : start + COLLECTION_MAX_FILES_PER_REQUEST]
        parts = [("file", (p.name, p.read_bytes(), "application/octet-stream")) for p in batch]
        api.call(
            "POST", f"/collections/{collection_id}/documents", files=parts, headers=UPLOAD_HEADERS
        )
    view = wait_ingested(api, collection_id, args.timeout)
    failed = 0
    for doc in view["documents"]:
        if doc["status"] == "failed":
            failed += 1
            console.print(f"[red]failed[/]   {doc['name']}: {doc['error']}")
        else:
            console.print(f"ingested {doc['name']}: {doc['chunks']} chunks")
    console.print(f"collection {args.collection} ({collection_id}): {view['chunks']} chunks")
    return 1 if failed else 0


def _collection(api: Api, name: str) -> str:
    """The id of the caller's own collection of that name, created if new (the built-in
    one is never matched: its name is refused with a 409 saying it is read-only)."""
    for collection in api.json("GET", "/collections")["collections"]:
        if collection["name"] == name and not collection["built_in"]:
            return collection["collection_id"]
    return api.json("POST", "/collections", json={"name": name})["collection_id"]
