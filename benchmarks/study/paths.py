"""Where the study reads and writes in the repository, by default: every
command takes these folders as arguments too (``--out``, ``--from``,
``--protocols``, ``--results``)."""

from pathlib import Path

#: The repository's root (this file is ``benchmarks/study/paths.py``).
REPOSITORY = Path(__file__).resolve().parents[2]
#: The study's pilots and committed results live under this folder.
BENCHMARKS = REPOSITORY / "benchmarks"
#: The committed run's folder (CSVs, figures, REPORT.md, run.json).
RESULTS = BENCHMARKS / "results"
#: The folder of the pre-registered protocols (``protocol.md``,
#: ``protocol-2.md``), whose SHA-256 each run records.
PROTOCOLS = REPOSITORY / "docs"
