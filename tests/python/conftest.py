import numpy as np
import pytest

import mgedump


@pytest.fixture
def small_graph():
    """data -> ADD(param w) named 'hidden' -> SQUARE named 'out' (priority 5, op name 'square_op')."""
    g = mgedump.Graph()
    data = g.input("data", (1, 3), "float32")
    w = g.param(np.array([1.0, 2.0, 3.0], dtype=np.float32), "w")
    hidden = g.op("Elemwise", data, w, mode="ADD", name="hidden")
    out = g.op("Elemwise", hidden, mode="SQUARE", name="square_op", priority=5)
    out.name = "out"
    return g, out
