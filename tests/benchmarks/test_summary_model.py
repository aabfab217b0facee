"""The summary model's fit (benchmarks/summary_model.py) on data whose answer is known."""

from __future__ import annotations

import numpy as np

from benchmarks.summary_model import believed, fit


def test_the_fit_separates_what_one_measure_separates_and_keeps_raw_units():
    rng = np.random.default_rng(1)
    features = np.c_[rng.normal(size=400), rng.normal(loc=50.0, scale=10.0, size=400)]
    labels = features[:, 0] + rng.normal(scale=0.3, size=400) > 0.5  # unbalanced on purpose
    model = fit(features, labels)
    assert model.shape == (3,)
    assert model[1] > 0 and abs(model[2]) < abs(model[1]) / 10  # the noise measure weighs little
    predicted = believed(model, features) >= 0.5
    assert (predicted == labels).mean() > 0.85
    # balanced class weights: both classes are found about equally well
    assert predicted[labels].mean() > 0.85 and (~predicted[~labels]).mean() > 0.85


def test_the_fit_is_the_optimum_of_its_objective():
    rng = np.random.default_rng(2)
    features = rng.normal(size=(200, 2))
    labels = features @ np.array([1.0, -2.0]) + rng.normal(size=200) > 0
    model = fit(features, labels)
    scale = features.std(axis=0)
    weights = np.where(labels, 200 / (2 * labels.sum()), 200 / (2 * (~labels).sum()))

    def objective(raw: np.ndarray) -> float:
        p = believed(raw, features)
        loss = -(weights * (labels * np.log(p) + (~labels) * np.log(1 - p))).sum()
        return float(loss + 0.5 * np.sum((raw[1:] * scale) ** 2))  # penalty on standardised

    assert np.isfinite(objective(model))
    for step in np.eye(3) * 1e-3:
        assert objective(model) <= min(objective(model + step), objective(model - step))
