"""A process that dies right after writing a checkpoint, for the resume tests."""

from __future__ import annotations

from medlda.engine import checkpoint


class Crash(Exception):
    """Stands for the process dying right after a checkpoint was written."""


def crash_after(monkeypatch, iteration: int) -> None:
    """Make the checkpoint of ``iteration`` the last thing the run does: it is written, then Crash."""
    save = checkpoint.save_snapshot

    def save_then_crash(path, snap, *args):
        save(path, snap, *args)
        if snap.iteration == iteration:
            raise Crash

    monkeypatch.setattr(checkpoint, "save_snapshot", save_then_crash)


def crash_then_resume(monkeypatch, fit, iteration: int, between=None):
    """``fit(resume=False)`` dies right after its checkpoint of ``iteration``; ``between()`` (if
    given) looks at what it left; returns ``fit(resume=True)``, the run taken up from there."""
    crash_after(monkeypatch, iteration)
    try:
        fit(resume=False)
    except Crash:
        pass
    else:
        raise AssertionError(f"the run did not stop at its checkpoint of iteration {iteration}")
    monkeypatch.undo()
    if between is not None:
        between()
    return fit(resume=True)
