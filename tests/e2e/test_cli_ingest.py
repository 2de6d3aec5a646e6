"""``python -m devhost ingest`` against a running devhost: a folder into a named collection."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from devhost.host import DevHost
from tests.e2e.test_cli_errors import one_error_line, run_cli
from tests.fakes.documents import pdf_with_pages

pytestmark = pytest.mark.e2e


def test_a_folder_is_ingested_recursively_into_the_named_collection(devhost: DevHost, tmp_path):
    folder = tmp_path / "docs"
    (folder / "runbooks").mkdir(parents=True)
    (folder / "runbooks" / "pump.pdf").write_bytes(pdf_with_pages(["Pump seals.", "Valves."]))
    (folder / "guide.md").write_text("# Guide\n\nPage the on-call engineer.")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7 not a pdf")
    (folder / ".hidden.md").write_text("# Not uploaded")

    result = run_cli(
        "ingest", str(folder), "--collection", "team-docs", "--url", devhost.api_url, cwd=tmp_path
    )
    assert result.returncode == 1, result.stderr  # one document failed
    assert "ingested pump.pdf: 2 chunks" in result.stdout
    assert "ingested guide.md: 1 chunks" in result.stdout
    assert "failed   broken.pdf: corrupt PDF" in result.stdout

    again = run_cli(
        "ingest",
        str(folder / "guide.md"),
        "--collection",
        "team-docs",
        "--url",
        devhost.api_url,
        cwd=tmp_path,
    )
    collections = httpx.get(f"{devhost.api_url}/collections").json()["collections"]
    names = [c["name"] for c in collections if not c["built_in"]]
    assert names == ["team-docs"]  # found again, not created twice
    assert "ingested guide.md: 1 chunks" in again.stdout


def test_a_missing_path_is_one_line(devhost: DevHost, tmp_path: Path) -> None:
    result = run_cli(
        "ingest", "nowhere", "--collection", "x", "--url", devhost.api_url, cwd=tmp_path
    )
    assert one_error_line(result) == "error: nowhere: no such file or folder"


def test_a_url_is_fetched_by_the_host(devhost: DevHost, tmp_path: Path) -> None:
    from tests.fakes.search_site import running_search_site

    for site in running_search_site():
        devhost_url = devhost.api_url
        page = f"{site.origin}/guide/tasks"
        result = run_cli("ingest", page, "--collection", "web", "--url", devhost_url, cwd=tmp_path)
        # devhost's fetcher refuses loopback addresses unless FETCH_ALLOWED_HOSTS admits them:
        # the request's error (422), said in one line naming the URL
        assert result.returncode == 1
        assert f"not fetched (SSRF guard): refused {page}: address 127.0.0.1" in result.stderr


def test_the_builtin_collections_name_is_refused_in_one_line(devhost: DevHost, tmp_path):
    (tmp_path / "guide.md").write_text("# Guide\n\nPage the on-call engineer.")
    result = run_cli(
        "ingest", "guide.md", "--collection", "python-docs", "--url", devhost.api_url, cwd=tmp_path
    )
    assert "built-in, read-only collection" in one_error_line(result)
    collections = httpx.get(f"{devhost.api_url}/collections").json()["collections"]
    assert [c["name"] for c in collections if not c["built_in"]] == []  # nothing created
