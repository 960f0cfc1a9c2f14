r"""The math reducer g_q of BSDProbe App. E (GSM8K, MATH): raw generations -> answers, equivalence.

Numeric and LaTeX answers: the last ``\boxed{}`` or the last number, fractions converted to
decimals, units removed; two answers are equivalent by string match, numeric equality (with
percentage scaling) or symbolic equality via SymPy (optional dependency ``benchkit[math]``).
The dispatch over task types is :mod:`benchkit.boundary._reducers`.
"""
from __future__ import annotations

import math
import re

import numpy as np

from benchkit._validation import check_text
from benchkit.response_set import NO_ANSWER

__all__ = ["extract_math_answer", "normalize_math_answer", "math_equivalent"]


def _closing_brace(text: str, i: int) -> int | None:
    """Index of the ``}`` that closes the ``{`` at ``text[i]`` (nested braces balanced); None if none."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return None


def _last_boxed(text: str) -> str | None:
    idx = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if idx < 0:
        return None
    i = text.find("{", idx)
    if i < 0:
        return None
    j = _closing_brace(text, i)
    return None if j is None else text[i + 1:j]


_NUM = r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+"


def extract_math_answer(text) -> str:
    r"""The final answer of a math generation, unnormalized (App. E, GSM8K / MATH reducer).

    Parameters
    ----------
    text : str
        The raw generation (None or NaN count as empty).

    Returns
    -------
    str
        The answer text as written, or ``NO_ANSWER`` when none is found; normalize it with
        :func:`normalize_math_answer`.

    Notes
    -----
    Order: the last ``\boxed{...}`` (balanced braces, the MATH convention); GSM8K's ``#### x``;
    the last "answer is x" / "answer: x" (to the end of its line or sentence); else the last
    number in the text.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).
    .. [2] Cobbe, K. et al. "Training Verifiers to Solve Math Word Problems." arXiv:2110.14168,
       2021 (GSM8K's ``#### x`` answer line).
    .. [3] Hendrycks, D. et al. "Measuring Mathematical Problem Solving With the MATH Dataset."
       NeurIPS Datasets and Benchmarks, 2021 (``\boxed{}`` answers).

    Examples
    --------
    >>> extract_math_answer(r"so $x = \boxed{\frac{1}{2}}$.")
    '\\frac{1}{2}'
    >>> extract_math_answer("She pays 3 * 4 = 12 dollars.\n#### 12")
    '12'
    """
    text = check_text("text", text)
    boxed = _last_boxed(text)
    if boxed is not None and boxed.strip():
        return boxed.strip()
    m = re.findall(r"####\s*([^\n]+)", text)
    if m:
        return m[-1].strip()
    m = re.findall(r"answer\s*(?:is|:)\s*([^\n]+)", text, flags=re.IGNORECASE)
    if m:
        ans = m[-1].strip()
        ans = re.split(r"(?<!\d)\.(?:\s|$)", ans)[0]  # end of sentence, not a decimal point
        return ans.strip().rstrip(".").strip()
    nums = re.findall(_NUM, text)
    if nums:
        return nums[-1]
    return NO_ANSWER


_UNIT_WORDS = (
    "dollars", "dollar", "cents", "cent", "units", "unit", "degrees", "degree", "meters", "meter",
    "centimeters", "cm", "km", "kg", "grams", "gram", "hours", "hour", "minutes", "minute",
    "seconds", "second", "days", "day", "weeks", "week", "years", "year", "miles", "mile", "feet",
    "foot", "inches", "inch", "mph", "pounds", "pound", "percent", "points", "point", "sq",
)


def _frac_to_div(s: str) -> str:
    # \frac{a}{b} (nested allowed) -> (a)/(b); also \frac12 -> (1)/(2)
    while True:
        i = s.find("\\frac")
        if i < 0:
            return s
        j = i + 5
        args = []
        for _ in range(2):
            if j < len(s) and s[j] == "{":
                k = _closing_brace(s, j)
                if k is None:
                    return s
                args.append(s[j + 1:k])
                j = k + 1
            elif j < len(s):
                args.append(s[j])
                j += 1
            else:
                return s
        s = s[:i] + f"({args[0]})/({args[1]})" + s[j:]


def _canonical_number(x: float) -> str:
    if math.isfinite(x) and abs(x - round(x)) < 1e-12 * max(1.0, abs(x)):
        return str(int(round(x)))
    return repr(float(np.round(x, 12)))


def normalize_math_answer(answer) -> str:
    r"""Canonical form of an extracted math answer: the answer state (App. E).

    Parameters
    ----------
    answer : str
        An extracted answer (:func:`extract_math_answer`).

    Returns
    -------
    str
        The canonical state: the shortest decimal for numbers, fractions and percentages, else the
        cleaned expression without spaces; ``NO_ANSWER`` stays ``NO_ANSWER``.

    Notes
    -----
    Removes ``$``, ``\left``/``\right``, spacing commands, ``\text{...}`` units and unit words,
    degree signs, thousands separators and a trailing period; ``\dfrac``/``\tfrac`` become
    ``\frac``; a leading "x =" is dropped. A result that is a number, a fraction of numbers (a/b
    or \frac{a}{b}) or a percentage ("25%" -> 25) becomes the shortest decimal (``"0.5"``,
    ``"12"``), so "1/2", "\frac{1}{2}" and "0.50" are one state (App. E: "Fractions were
    converted to decimals, units removed").

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> normalize_math_answer(r"\$1,250.00")
    '1250'
    >>> normalize_math_answer(r"\dfrac{3}{4}")
    '0.75'
    """
    s = check_text("answer", answer)
    if s == NO_ANSWER:
        return NO_ANSWER
    s = s.strip()
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    s = re.sub(r"\\text\{\s*([^{}]*)\}", r" \1 ", s)
    s = re.sub(r"\\mbox\{\s*([^{}]*)\}", r" \1 ", s)
    for tok in ("\\left", "\\right", "\\!", "\\,", "\\;", "\\:", "\\quad", "\\displaystyle",
                "\\$", "$"):
        s = s.replace(tok, "")
    s = s.replace("\\%", "%").replace("^\\circ", "").replace("^{\\circ}", "").replace("°", "")
    s = re.sub(r"^\s*[a-zA-Z]\s*=\s*", "", s)  # "x = 5"
    s = re.sub(r"\b(" + "|".join(_UNIT_WORDS) + r")\b\.?", " ", s, flags=re.IGNORECASE)
    s = s.strip().rstrip(".").strip()
    s = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", s)  # thousands separators
    s = re.sub(r"\s+", "", s)
    pct = s.endswith("%")
    core = s[:-1] if pct else s
    core = _frac_to_div(core)
    m = re.fullmatch(r"\(?(-?\d+(?:\.\d+)?|-?\.\d+)\)?(?:/\(?(-?\d+(?:\.\d+)?)\)?)?", core)
    if m:
        num = float(m.group(1))
        if m.group(2) is not None:
            den = float(m.group(2))
            if den == 0:
                return core
            num /= den
        return _canonical_number(num)
    return core if not pct else core + "%"


def _as_number(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


_LATEX_SYMPY = (
    ("\\cdot", "*"), ("\\times", "*"), ("\\pi", "pi"), ("\\infty", "oo"), ("^", "**"),
    ("{", "("), ("}", ")"), ("\\", ""),
)


def _to_sympy(s: str):
    import sympy

    t = _frac_to_div(s)
    t = re.sub(r"\\sqrt\[(\d+)\]\{([^{}]*)\}", r"((\2)**(1/(\1)))", t)
    t = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", t)
    t = re.sub(r"\\sqrt(\d)", r"sqrt(\1)", t)
    for a, b in _LATEX_SYMPY:
        t = t.replace(a, b)
    from sympy.parsing.sympy_parser import convert_xor
    from sympy.parsing.sympy_parser import implicit_multiplication_application
    from sympy.parsing.sympy_parser import parse_expr
    from sympy.parsing.sympy_parser import standard_transformations

    tr = standard_transformations + (implicit_multiplication_application, convert_xor)
    return parse_expr(t, transformations=tr, evaluate=True, local_dict={"pi": sympy.pi, "E": sympy.E})


def math_equivalent(prediction, reference, *, rel_tol: float = 1e-6, percent: bool = True,
                    symbolic: bool = True) -> bool:
    r"""Whether a math answer equals the reference (App. E's three equivalence layers).

    Parameters
    ----------
    prediction, reference : str
        Extracted answers (normalized here with :func:`normalize_math_answer`).
    rel_tol : float, default 1e-6
        Relative tolerance of the numeric layer (``math.isclose``, absolute 1e-9).
    percent : bool, default True
        Numeric layer also accepts the prediction scaled by 100 either way (30 vs 0.3: "numeric
        equivalence (including percentage scaling)").
    symbolic : bool, default True
        Last layer: SymPy parses both (LaTeX fractions, roots, ``\pi``, powers converted) and
        checks ``simplify(a - b) == 0``. Needs sympy (``pip install benchkit[math]``).

    Returns
    -------
    bool
        False for ``NO_ANSWER``.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).
    .. [2] Meurer, A. et al. "SymPy: symbolic computing in Python." PeerJ Computer Science 3:e103,
       2017.

    Examples
    --------
    >>> math_equivalent(r"\frac{\sqrt{2}}{2}", r"1/\sqrt{2}")
    True
    """
    a = normalize_math_answer(prediction)
    b = normalize_math_answer(reference)
    if a == NO_ANSWER or b == NO_ANSWER:
        return False
    if a == b:
        return True
    x, y = _as_number(a.rstrip("%")), _as_number(b.rstrip("%"))
    if x is not None and y is not None:
        cands = (x, x / 100.0, x * 100.0) if percent else (x,)
        return any(math.isclose(c, y, rel_tol=rel_tol, abs_tol=1e-9) for c in cands)
    if not symbolic:
        return False
    try:
        import sympy
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("symbolic math equivalence needs sympy: pip install 'benchkit[math]'"
                          ) from exc
    try:
        ea, eb = _to_sympy(a), _to_sympy(b)
        diff = sympy.simplify(ea - eb)
    except Exception:  # noqa: BLE001 - any parse failure means "not shown equivalent"
        return False
    return bool(diff == 0)
