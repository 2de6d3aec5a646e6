"""A worker's numpy runs one BLAS thread: its concurrency is its activities, and BLAS threads
spinning beside them doubled the CPU of an offline session (bench.load)."""

from __future__ import annotations

from threadpoolctl import threadpool_info

from shared.bootstrap import AppServices
from shared.core.config import Settings


def test_the_services_of_a_process_leave_numpy_one_blas_thread(tmp_path):
    AppServices(Settings(data_dir=tmp_path))
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and all(pool["num_threads"] == 1 for pool in blas)
