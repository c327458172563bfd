"""Samplers: how one sweep over the tokens, one draw of eta and inference for new documents are
done (``base.Sampler``). "gibbs" is exact collapsed Gibbs (the reference), "light" LightMedLDA
(docs/mathematics.md §4, §4a), "blocked" blocked collapsed Gibbs for LDA (docs/mathematics.md §8). Importing this package
registers them in this order."""

# imported in registration order (the reference sampler first), not sorted
from medlda._kernels.light.proposals import PROPOSAL_MODES  # noqa: I001
from medlda.samplers.base import ETA_DRAWS, REGISTRY, Sampler, WarmUp, make_sampler, register, sampler_class
from medlda.samplers.gibbs import ExactGibbs
from medlda.samplers.light import EXACT_ETA_SHARE, LIGHT_VARIANTS, HashedCounts, Light, LightCache
from medlda.samplers.blocked import BLOCK_SIMULATIONS, BlockedGibbs
from medlda.samplers.choice import (
    GIBBS_MAX_TOPICS_LDA,
    GIBBS_MAX_TOPICS_SUPERVISED,
    choose_sampler,
    describe_choice,
    resolve_sampler,
    resolve_steps,
)

SAMPLERS = tuple(REGISTRY)  # the registered samplers' names

__all__ = ["BLOCK_SIMULATIONS", "ETA_DRAWS", "EXACT_ETA_SHARE", "GIBBS_MAX_TOPICS_LDA", "GIBBS_MAX_TOPICS_SUPERVISED",
           "LIGHT_VARIANTS", "PROPOSAL_MODES", "REGISTRY", "SAMPLERS", "BlockedGibbs", "ExactGibbs", "HashedCounts",
           "Light", "LightCache", "Sampler", "WarmUp", "choose_sampler", "describe_choice", "make_sampler", "register",
           "resolve_sampler", "resolve_steps", "sampler_class"]
