"""Statistics of a bench's repeats: is the other side better or worse than
the baseline, or is that not resolved by the repeats there are?

Two tests, both over the repeats themselves and both needed for a verdict:

- the exact two-sided Mann-Whitney U test (rank-sum test) of the two sides:
  how likely a split of the pooled repeats at least as lopsided as the one
  seen is, when which run went to which side does not matter.  It assumes no
  distribution (bench metrics are counts and rates with long tails and a few
  runs a side) and is exact at bench sizes, so its p is a real probability,
  not an approximation that is worst where the samples are smallest;
- a bootstrap 95% percentile interval of the ratio of medians (other over
  baseline): how large the difference is and how sure, in the unit the
  report prints (a ratio to mode off or to stock).

Ties: every tied value gets the mean of the ranks it spans (mid-ranks), and
the p comes from the exact distribution of the first side's rank sum over
all C(a+b, a) equally likely splits of the pooled values *with those ties*
(the conditional permutation distribution), counted by dynamic programming
over the groups of tied values.  Ties therefore cost resolution, as they
should: five runs of 0 pageout against four 0s and one 7 give p = 1.  The
two-sided p is twice the smaller tail (at most 1); without ties the
distribution is symmetric and that is the usual two-sided p.  Beyond
EXACT_MAX_N pooled values the normal approximation with the tie correction
and a continuity correction is used (a bench never has that many repeats).

Only the standard library: the lab's hosts need nothing installed to make a
report.
"""
import functools
import math
import random
from math import comb

ALPHA = 0.05
RESAMPLES = 10000
LEVEL = 0.95
SEED = 1
EXACT_MAX_N = 40
DIRECTIONS = ("lower", "higher")


def median(v):
    """Median of a non-empty list (the mean of the middle two when even)."""
    s = sorted(v)
    n = len(s)
    m = n // 2
    return s[m] if n % 2 else (s[m - 1] + s[m]) / 2


def ratio(b, o):
    """o / b, with the two cases a ratio of nonnegative medians meets at 0:
    o / 0 is infinite (the baseline had none, the other had some) and 0 / 0
    is 1 (neither had any: no change).  Metrics here are counts and rates,
    never negative."""
    if b == 0:
        return 1.0 if o == 0 else math.copysign(math.inf, o)
    return o / b


def ratio_of_medians(base, other):
    """The other side's median over the baseline's (ratio()'s conventions)."""
    return ratio(median(base), median(other))


def _tie_groups(pooled):
    """[(count, twice the mid-rank)] of each distinct value, ascending.
    Doubled mid-ranks are integers: a group of t values after k smaller
    ones spans ranks k+1..k+t, mean k + (t+1)/2."""
    s = sorted(pooled)
    out, k, i = [], 0, 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        t = j - i
        out.append((t, 2 * k + t + 1))
        k += t
        i = j
    return out


def rank_sum_distribution(pooled, n):
    """{twice the rank sum: number of splits} over every way of taking n of
    the pooled values as the first side, ties at their mid-ranks.  Counts
    sum to C(len(pooled), n).  Dynamic programming over the tie groups:
    taking j of a group of t is C(t, j) splits adding j mid-ranks."""
    dist = {(0, 0): 1}
    for t, r2 in _tie_groups(pooled):
        nxt = {}
        for (k, s), c in dist.items():
            for j in range(0, min(t, n - k) + 1):
                key = (k + j, s + j * r2)
                nxt[key] = nxt.get(key, 0) + c * comb(t, j)
        dist = nxt
    return {s: c for (k, s), c in dist.items() if k == n}


def _rank_sum2(x, pooled):
    """Twice the sum of x's mid-ranks among the pooled values."""
    rank2 = dict(zip(sorted(set(pooled)), (r2 for _, r2 in _tie_groups(pooled))))
    return sum(rank2[v] for v in x)


def mann_whitney(x, y):
    """(U of x, two-sided p) of the Mann-Whitney U test of x against y.
    U of x counts the pairs where x's value is above y's, ties a half; it
    is n_x * n_y / 2 when neither side tends higher.  p is exact (see the
    module's docstring for ties) up to EXACT_MAX_N pooled values."""
    nx, ny = len(x), len(y)
    if not nx or not ny:
        raise ValueError("mann_whitney needs values on both sides")
    pooled = list(x) + list(y)
    w2 = _rank_sum2(x, pooled)
    u = w2 / 2 - nx * (nx + 1) / 2
    if nx + ny <= EXACT_MAX_N:
        dist = rank_sum_distribution(pooled, nx)
        total = sum(dist.values())
        low = sum(c for s, c in dist.items() if s <= w2)
        high = sum(c for s, c in dist.items() if s >= w2)
        return u, min(1.0, 2 * min(low, high) / total)
    n = nx + ny
    ties = sum(t ** 3 - t for t, _ in _tie_groups(pooled))
    var = nx * ny / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return u, 1.0
    z = max(0.0, abs(u - nx * ny / 2) - 0.5) / math.sqrt(var)
    return u, min(1.0, math.erfc(z / math.sqrt(2)))


def min_p(a, b):
    """The smallest two-sided exact p that a against b repeats can give:
    2 / C(a+b, a), reached when the sides do not overlap and no value ties.
    A verdict at level alpha needs min_p(a, b) < alpha."""
    return min(1.0, 2 / comb(a + b, a))


def min_n_per_side(alpha=ALPHA):
    """The fewest repeats a side with which p < alpha is possible at all."""
    n = 1
    while min_p(n, n) >= alpha:
        n += 1
    return n


def bootstrap_ratio_ci(base, other, resamples=RESAMPLES, level=LEVEL, seed=SEED):
    """Percentile interval of the ratio of medians (other / baseline): each
    side resampled with replacement at its own size, `resamples` times, and
    the interval cut at the (1-level)/2 and (1+level)/2 quantiles of the
    ratios (the 251st smallest and the 251st largest of 10,000).  A fresh
    random.Random(seed) per call: the same repeats give the same interval
    in every report, whatever rows came before them; so it is computed once
    per pair of sides (a report's table and its plot ask for the same)."""
    return _bootstrap_ratio_ci(tuple(base), tuple(other), resamples, level, seed)


@functools.lru_cache(maxsize=4096)
def _bootstrap_ratio_ci(base, other, resamples, level, seed):
    rng = random.Random(seed)
    nb, no = len(base), len(other)
    rs = []
    for _ in range(resamples):
        rs.append(ratio(median(rng.choices(base, k=nb)), median(rng.choices(other, k=no))))
    rs.sort()
    k = int((1 - level) / 2 * resamples)
    return rs[k], rs[resamples - 1 - k]


def compare(base, other, better, alpha=ALPHA):
    """The verdict on other against base for a metric whose better
    direction is `better` ("lower" or "higher"): "better" or "worse" only
    when the exact Mann-Whitney p < alpha AND the bootstrap interval of the
    ratio of medians excludes 1 on the same side as the ranks lean; else
    "not resolved at n=A/B" (A repeats of the baseline, B of the other).
    Both, because each alone misleads at bench sizes: ranks ignore how far
    apart the sides are, and a percentile interval from 3-5 runs is too
    narrow to be trusted alone.  Returns n (A, B), ratio, ci, p, verdict
    (ratio, ci and p are None where a side has no value)."""
    if better not in DIRECTIONS:
        raise ValueError(f"better must be one of {DIRECTIONS}, not {better!r}")
    base, other = list(base), list(other)
    n = (len(base), len(other))
    out = {"n": n, "ratio": None, "ci": None, "p": None, "u": None,
           "verdict": f"not resolved at n={n[0]}/{n[1]}"}
    if not base or not other:
        return out
    out["ratio"] = ratio_of_medians(base, other)
    out["ci"] = bootstrap_ratio_ci(base, other)
    out["u"], out["p"] = mann_whitney(other, base)
    lo, hi = out["ci"]
    if out["p"] < alpha:
        up = out["u"] > n[0] * n[1] / 2        # the other side's ranks lean high
        if lo > 1 and up:
            out["verdict"] = "worse" if better == "lower" else "better"
        elif hi < 1 and not up:
            out["verdict"] = "better" if better == "lower" else "worse"
    return out
