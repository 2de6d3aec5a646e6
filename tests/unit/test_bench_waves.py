"""Memory against finished sessions: what the waves' RSS figures say per session."""

from __future__ import annotations

import pytest

from bench.waves import Waves


def test_flat_memory_after_the_first_wave_reads_as_no_growth() -> None:
    waves = Waves(sessions=100, rss_mb=[300.0, 320.0, 321.0, 319.0, 320.0])
    assert waves.kb_per_session_fit == pytest.approx(-2.048)  # the first wave left out
    assert waves.kb_per_session == pytest.approx(1024 / 100)


def test_memory_kept_per_session_reads_as_its_size() -> None:
    per_session_kb = 50.0
    rss = [300.0 + k * 100 * per_session_kb / 1024 for k in range(5)]
    waves = Waves(sessions=100, rss_mb=rss)
    assert waves.kb_per_session_fit == pytest.approx(per_session_kb)
    assert waves.kb_per_session == pytest.approx(per_session_kb)


def test_two_waves_have_no_fit() -> None:
    assert Waves(sessions=100, rss_mb=[300.0, 301.0]).kb_per_session_fit is None
