"""What a training run warms up (compiles before its timed sweeps): only the kernels it will use."""

from __future__ import annotations

from medlda.samplers import Light, make_sampler


def test_light_warms_up_coordinate_eta_sweeps_only_for_a_run_that_may_draw_them():
    light = Light(n_mh=6)
    cheap, dear = (1000, 200_000, 20), (10_000, 20_000, 400)  # (documents, tokens, topics)
    assert light._exact_eta_is_cheap(*cheap, 3) and not light._exact_eta_is_cheap(*dear, 3)
    assert [g[-1] for g in light.warm_up_groups(3, cheap)] == [False]  # auto draws exactly: no coordinate kernels
    assert [g[-1] for g in light.warm_up_groups(3, dear)] == [True]
    assert [g[-1] for g in light.warm_up_groups(3)] == [True]  # sizes unknown: both
    assert [g[-1] for g in light.warm_up_groups(0, dear)] == [False]  # LDA draws no eta
    assert [g[-1] for g in Light(eta_draw="coordinate").warm_up_groups(1, cheap)] == [True]
    assert [g[-1] for g in Light(eta_draw="exact").warm_up_groups(1, dear)] == [False]
    assert [g[-1] for g in light.warm_up_groups(None)] == [False, True]  # LDA and one task, sizes unknown


def test_a_warm_up_plan_draws_eta_as_its_group_says():
    for coordinate in (False, True):
        group = ("light", "collapsed", True, "mixture", 6, 2, coordinate)
        plan = Light.warm_up_plan(group)
        expected = "coordinate" if coordinate else "exact"
        assert plan.sampler.eta_draw == plan.on_threads.eta_draw == expected and plan.sweep_tasks == (2,)
    gibbs = make_sampler("gibbs")
    assert gibbs.warm_up_groups(3, (10, 100, 5)) == [("gibbs", "tasks")]
    assert gibbs.warm_up_groups(0, (10, 100, 5)) == [("gibbs", "lda-dense")]
    assert gibbs.warm_up_groups(0, (10, 100, 500)) == [("gibbs", "lda-sparse")]
    assert gibbs.warm_up_groups(None) == [("gibbs", "lda-dense"), ("gibbs", "lda-sparse"), ("gibbs", "tasks")]
