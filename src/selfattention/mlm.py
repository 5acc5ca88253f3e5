"""BERT's masked-language-model corruption (Devlin et al. 2019, §3.1): the 15 % / 80-10-10 rule.

``mlm_corrupt`` chooses each eligible position independently with probability ``p`` (the convention of
Hugging Face's ``DataCollatorForLanguageModeling``; BERT's original ``create_pretraining_data.py`` picks a
fixed count, round(0.15 · length) capped by ``max_predictions_per_seq``, per sequence: both give 15 %); of
the chosen, 80 % become the [MASK] token, 10 % a uniformly random token, 10 % stay unchanged; the labels
hold the original token at the chosen positions and -100 (PyTorch's ``ignore_index``) everywhere else. It
hides *token identities* in the input; it is not an attention mask: every position, [MASK] included, is
still attended to.
"""

from __future__ import annotations

import torch

from ._checks import _shape, check_positive_int

__all__ = ["IGNORE_INDEX", "mlm_corrupt"]

IGNORE_INDEX = -100  # the default ignore_index of torch.nn.functional.cross_entropy


def mlm_corrupt(
    tokens: torch.Tensor,
    mask_id: int,
    vocab_size: int,
    p: float = 0.15,
    generator: torch.Generator | None = None,
    maskable: torch.Tensor | None = None,
    mask_frac: float = 0.8,
    random_frac: float = 0.1,
) -> tuple[torch.Tensor, torch.Tensor]:
    """tokens (...) int -> (corrupted (...), labels (...)); labels = token where chosen, else -100.

    ``maskable`` (...) bool: positions that may be chosen (e.g. False at padding, [CLS], [SEP]).
    """
    if (not isinstance(tokens, torch.Tensor) or tokens.is_floating_point() or tokens.is_complex()
            or not tokens.dtype.is_signed):  # bool and unsigned: -100 would wrap (uint8: 156)
        got = getattr(tokens, "dtype", type(tokens).__name__)
        raise ValueError(f"tokens must be a signed integer torch.Tensor: got {got}, shape {_shape(tokens)}")
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    if isinstance(mask_id, bool) or not isinstance(mask_id, int) or not 0 <= mask_id < vocab_size:
        raise ValueError(f"mask_id must be an int in [0, vocab_size={vocab_size}): got {mask_id!r}")
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= vocab_size):
        raise ValueError(f"tokens must lie in [0, vocab_size={vocab_size}): got {_shape(tokens)} "
                         f"with range [{int(tokens.min())}, {int(tokens.max())}]")
    for name, f in (("p", p), ("mask_frac", mask_frac), ("random_frac", random_frac)):
        if not isinstance(f, (int, float)) or isinstance(f, bool) or not 0.0 <= f <= 1.0:
            raise ValueError(f"{name} must be a probability in [0, 1]: got {f!r}")
    if mask_frac + random_frac > 1.0:
        raise ValueError(f"mask_frac + random_frac must be <= 1: got {mask_frac} + {random_frac}")
    if maskable is not None and (maskable.dtype != torch.bool or maskable.shape != tokens.shape):
        raise ValueError(f"maskable must be a bool tensor of the tokens' shape {_shape(tokens)}: "
                         f"got {getattr(maskable, 'dtype', None)}, shape {_shape(maskable)}")
    u = torch.rand(tokens.shape, generator=generator, device=tokens.device)  # which positions
    chosen = u < p
    if maskable is not None:
        chosen &= maskable
    r = torch.rand(tokens.shape, generator=generator, device=tokens.device)  # what they become
    to_mask = chosen & (r < mask_frac)
    to_random = chosen & (r >= mask_frac) & (r < mask_frac + random_frac)
    random_tokens = torch.randint(
        vocab_size, tokens.shape, generator=generator, device=tokens.device, dtype=tokens.dtype
    )
    corrupted = torch.where(to_mask, torch.full_like(tokens, mask_id), tokens)
    corrupted = torch.where(to_random, random_tokens, corrupted)
    labels = torch.where(chosen, tokens, torch.full_like(tokens, IGNORE_INDEX))
    return corrupted, labels
