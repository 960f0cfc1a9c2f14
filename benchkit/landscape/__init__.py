"""MCQ probability landscapes and perturbation audits (paper 003).

Entry point: :func:`map_points` turns a ResponseSet with option probabilities (or log-probabilities)
into :class:`LandscapePoints`: per (model, item) the top-option probability ``P_top1``, the
normalized residual entropy ``H_norm``, the predicted option and correctness (Sec. 3.1-3.2). The
paper's constants: the perturbation variants (:data:`VARIANTS`), the App. F prompts
(:data:`SYSTEM_PROMPT`, :data:`PROMPT_TEMPLATE`), the Table 5 taxonomy (:data:`TAXONOMY`), the
App. K labels (:data:`STRUCTURAL_LABELS`) and the option letters (:data:`LETTERS`).

The array-level steps are in :mod:`benchkit.landscape.steps`: points from raw probability arrays,
the mean pairwise distance (MPD, Sec. 3.3) and the paper's MPD tables, perturbation builders,
model runners, and validation against expert labels. The explorer's view model is in
:mod:`benchkit.landscape.explore`.

Layout: private implementation modules ``_points``, ``_mpd`` (with ``_mpd_tables``), ``_perturb``
(with ``_items``, ``_noise``), ``_validate`` (with ``_flag_validation``), ``_structure``, ``_runners``
(with ``_backends``, ``_openai_backend``, ``_results_file``); ``responses`` (ResponseSet entry
points); ``steps`` (the second tier); ``explore`` (view models; their results in ``_view_results``).
"""
from benchkit.landscape import steps as steps
from benchkit.landscape._perturb import PROMPT_TEMPLATE
from benchkit.landscape._perturb import SYSTEM_PROMPT
from benchkit.landscape._perturb import VARIANTS
from benchkit.landscape._points import LETTERS
from benchkit.landscape._points import LandscapePoints
from benchkit.landscape._structure import STRUCTURAL_LABELS
from benchkit.landscape._validate import TAXONOMY
from benchkit.landscape.responses import map_points

__all__ = [
    "LETTERS",
    "PROMPT_TEMPLATE",
    "STRUCTURAL_LABELS",
    "SYSTEM_PROMPT",
    "TAXONOMY",
    "VARIANTS",
    "LandscapePoints",
    "map_points",
]
