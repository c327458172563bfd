"""The engine: the chain state (``state``), THE training loop (``loop``) and its backends
(``local``: this process; ``ray``: document shards on a Ray cluster), the loop's callbacks
(``checkpoint``, ``progress``), JIT warm-up (``warmup``) and held-out perplexity (``perplexity``)."""
