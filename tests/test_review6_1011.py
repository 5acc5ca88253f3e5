"""Review round 6, chapters 10-11: RMSNorm's default eps in 16 bits (H1), the NoPE myth after a leading
condition (M1) and the lows fixed with them."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from selfattention.transformer import RMSNorm

D = 4096


# H1: eps=None is the epsilon of the computation dtype (fp32 for fp16/bf16), as torch.nn.RMSNorm. With the
# input dtype's epsilon (fp16 9.8e-4, bf16 7.8e-3) the output RMS at input RMS 0.05 was 0.87x / 0.55x torch's.
@pytest.mark.parametrize("rms", [0.03, 0.05, 0.1])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rmsnorm_default_eps_of_small_16_bit_inputs_equals_torch(dtype, rms):
    torch.manual_seed(0)
    x = (rms * torch.randn(8, D)).to(dtype)
    ours = RMSNorm(D).to(dtype)(x)
    ref = nn.RMSNorm(D).to(dtype)(x)
    assert ours.dtype == dtype
    torch.testing.assert_close(ours, ref, atol=0, rtol=0)
    torch.testing.assert_close(ours, F.rms_norm(x, (D,)), atol=0, rtol=0)
    out_rms = float(ours.detach().double().pow(2).mean().sqrt())
    assert abs(out_rms - 1.0) < 0.01  # normalised to RMS 1, not shrunk by a 16-bit eps


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_rmsnorm_default_eps_of_tiny_inputs_equals_torch(dtype):
    # at RMS 1e-4 the eps itself is visible: fp32's eps for fp32, fp64's for fp64
    torch.manual_seed(0)
    x = 1e-4 * torch.randn(8, 64, dtype=dtype)
    torch.testing.assert_close(RMSNorm(64).to(dtype)(x), nn.RMSNorm(64, dtype=dtype)(x), atol=1e-6, rtol=1e-6)
