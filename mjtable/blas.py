"""One BLAS thread for the whole process (``mjtable`` runs every subcommand inside ``one_blas_thread``, and
``vision.classifier.enroll.build`` fits its heads inside it, for the callers without the command round them:
``bench.vision``, the model card's ``real_enrollment``, the table benchmark).

numpy's matrix products here are small: an enrollment's head fits multiply (photos x 4 turns x variations) x 96
embeddings by 96 x 47 classes, 300 Adam steps per fit and a dozen fits; the service multiplies a frame's crops by
an enrolled head.  OpenBLAS threads gain nothing at these sizes, and its worker threads wait by spinning: with one
of two cores busy elsewhere (a training run here; on a Pi, the service's camera pipeline and onnxruntime's own
threads), `mjtable vision enroll` of 184 photos took over 300 s with two BLAS threads against 63 s with one
(2026-11-28).  onnxruntime keeps its own thread setting (``threads=`` of ``OnnxTileClassifier.load``).

Call from the main thread; the limit is process-wide while it holds and the previous setting comes back after.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit every loaded BLAS library (numpy's OpenBLAS) to one thread while the block runs."""
    import numpy  # noqa: F401  -- loads OpenBLAS first, so that the limit reaches it
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
