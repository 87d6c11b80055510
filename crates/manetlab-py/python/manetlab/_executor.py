"""Sweeps on an executor: a `dask.distributed.Client` or any
`concurrent.futures.Executor` (thread and process pools, loky, Ray's
`RayExecutor`, ...).

Each run is one task: `run_record(text, origin, seed, key)`, a module-level
function (it pickles by reference), takes the point's resolved scenario
text and the seed and returns the run's compact record, one checksummed
JSON line. The records stream into the run store as tasks finish (each is
checked: checksum, part of the plan, same fingerprint, i.e. the same
config and manetlab build on the worker), a failed or lost task is
submitted again up to `retries` times, and the tables are aggregated from
the store at the end by the same code as a local sweep, so the DataFrame
is the same byte for byte.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, Optional, Tuple

from . import _native


def run_record(text: str, origin: str, seed: int, key: str) -> str:
    """One run of a sweep on a worker: (point scenario text, seed) in, the
    run's record line out."""
    return _native.run_record(text, origin, int(seed), key)


def _is_dask(executor: Any) -> bool:
    mod = type(executor).__module__ or ""
    return mod.split(".")[0] == "distributed" and hasattr(executor, "gather")


def _submit(executor: Any, task: Tuple[str, str, str, int], dask: bool) -> Any:
    key, text, origin, seed = task
    if dask:
        # pure=False: a resubmitted task is a new task, not the cached failure.
        return executor.submit(run_record, text, origin, seed, key, pure=False)
    return executor.submit(run_record, text, origin, seed, key)


def _show(progress: bool, done: int, total: int) -> None:
    if progress:
        sys.stderr.write(f"\rmanetlab sweep: {done}/{total} runs")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run_on_executor(job: "_native.SweepJob", executor: Any, retries: int = 3, progress: bool = False) -> int:
    """Runs the job's tasks on `executor`, adding each record to the job as
    it finishes. Returns the number of runs executed."""
    tasks = job.tasks()
    total = len(tasks)
    if total == 0:
        return 0
    dask = _is_dask(executor)
    pending: Dict[Any, Tuple[Tuple[str, str, str, int], int]] = {}
    for t in tasks:
        pending[_submit(executor, t, dask)] = (t, 0)
    done = 0
    _show(progress, done, total)

    def finished(fut: Any) -> Optional[Any]:
        """Handles one finished future; returns a replacement future when
        the task is submitted again."""
        nonlocal done
        task, tries = pending.pop(fut)
        try:
            line = fut.result()
        except Exception as e:  # a failed task, a lost worker (dask KilledWorker), ...
            if tries >= retries:
                for f in list(pending):
                    f.cancel()
                raise RuntimeError(f"sweep run {task[0]} failed {tries + 1} times: {e!r}") from e
            nf = _submit(executor, task, dask)
            pending[nf] = (task, tries + 1)
            return nf
        job.add(line)
        done += 1
        _show(progress, done, total)
        return None

    if dask:
        from distributed import as_completed

        ac = as_completed(list(pending))
        for fut in ac:
            nf = finished(fut)
            if nf is not None:
                ac.add(nf)
    else:
        import concurrent.futures as cf

        while pending:
            ready, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED)
            for fut in ready:
                finished(fut)
    return done
