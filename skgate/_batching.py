"""How many models train as one network, and how many go to one parallel
job: each stated once, without importing torch.

Read by the training engine (:mod:`skgate._engine.fitting`), by
:func:`skgate.compare_gates` and by the study; :mod:`skgate.parallel`
documents and exports them.
"""

__all__ = ["MAX_MODELS_PER_NETWORK", "MODELS_PER_JOB", "equal_parts"]

# Documented where skgate.parallel exports them.
MAX_MODELS_PER_NETWORK = 20

MODELS_PER_JOB = 10


def equal_parts(items, max_size):
    """``items`` cut into the fewest consecutive parts of at most
    ``max_size``, as equal in size as can be, the larger first.

    Parameters
    ----------
    items : sequence
        Anything that slices (a list, a tuple, an array).
    max_size : int
        The largest part, at least 1.

    Returns
    -------
    list
        Slices of ``items``, in order; empty for no items.

    Raises
    ------
    ValueError
        When ``max_size`` is not an int of at least 1.

    Examples
    --------
    >>> from skgate.parallel import equal_parts
    >>> [len(part) for part in equal_parts(list(range(25)), 10)]
    [9, 8, 8]
    """
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ValueError(f"max_size must be an int >= 1; got {max_size!r}.")
    if len(items) == 0:
        return []
    n_parts = -(-len(items) // max_size)
    size, extra = divmod(len(items), n_parts)
    starts = [i * size + min(i, extra) for i in range(n_parts + 1)]
    return [items[a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)]
