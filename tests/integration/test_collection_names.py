"""A collection's name means one collection of the caller's: the built-in collection's
name is refused at create, and creating one never loads the built-in corpus."""

from __future__ import annotations

import pytest

from shared.adapters.identity import system_principal
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.errors import ConflictError
from shared.usecases import collections as uc


def test_the_builtin_collections_name_is_refused_with_why(tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path))
    owner = system_principal("names")
    for name in ("python-docs", " Python-Docs "):
        with pytest.raises(ConflictError, match="built-in, read-only collection"):
            uc.create_collection(svc, owner, name)
    assert uc.own_collections(svc, owner) == []


def test_names_are_matched_against_the_callers_own_without_loading_the_corpus(tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path))
    owner, other = system_principal("names"), system_principal("other")
    mine = uc.create_collection(svc, owner, "team-docs")
    theirs = uc.create_collection(svc, other, "team-docs")  # another person's: no clash
    with pytest.raises(ConflictError, match="already have"):
        uc.create_collection(svc, owner, "team-docs")
    assert [c.id for c in uc.own_collections(svc, owner)] == [mine.id]
    assert [c.id for c in uc.own_collections(svc, other)] == [theirs.id]
    assert "corpus" not in vars(svc)  # the built-in corpus (seconds to build) was not loaded
