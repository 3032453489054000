"""Session-wide test settings; loaded by pytest before any test module."""

import os

# scikit-learn's check_array_api_input is skipped unless SciPy's array API
# support is switched on, and SciPy reads this once, at import.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
