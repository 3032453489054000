"""Estimators that pickle with their user gate (the gate registry lives in
one process)."""

from .nn import BUILT_IN_GATES, GATES


class CarriesGate:
    """Pickles with its user gate: a fresh process (a joblib worker, a later
    session) that never registered the gate can still fit and predict.

    ``gate`` is a name in a registry that lives in one process; a user gate's
    entry travels in the pickle and becomes the registered one where it is
    unpickled (replacing a different definition, with a warning)
    (``skgate.nn.Gate.__reduce__``). Built-in gates travel as names.
    """

    def __getstate__(self):
        state = super().__getstate__()
        gate = self.__dict__.get("gate")
        if isinstance(gate, str) and gate in GATES and gate not in BUILT_IN_GATES:
            state = {**state, "_user_gate": GATES[gate]}
        return state

    def __setstate__(self, state):
        # Unpickling the entry has made it the registered gate.
        state = {key: value for key, value in state.items() if key != "_user_gate"}
        super().__setstate__(state)
