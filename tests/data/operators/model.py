# Operator-coverage fixture. A trailing "expect: R..." names the targets whose torch_npu has no NPU kernel for the
# call on that line (2.1.0 = v2.1.0-5.0.0, 2.3.1 = v2.3.1-6.0.rc2, 2.12.0 = v2.12.0-26.1.0); other lines are controls.
import logging

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(64, 4, batch_first=True)  # expect: 2.1.0 2.3.1
        self.encoder = nn.TransformerEncoderLayer(d_model=64, nhead=4, batch_first=True)  # expect: 2.1.0 2.3.1 2.12.0
        # controls: no fast path (torch nn/modules/activation.py, transformer.py): batch_first left False, a key/value
        # bias, a cross-attention-only module (every call passes other key and value than its query)
        self.seq_first = nn.MultiheadAttention(64, 4)
        self.seq_first_layer = nn.TransformerEncoderLayer(d_model=64, nhead=4)
        self.stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4), num_layers=2)
        self.biased = nn.MultiheadAttention(64, 4, add_bias_kv=True, batch_first=True)
        self.cross = nn.MultiheadAttention(64, 4, batch_first=True)
        self.linear = nn.Linear(64, 64)

    def forward(self, x, ids, stop_ids, idx, src, m):
        # operators that gained an NPU kernel in later releases
        a = torch.isin(ids, stop_ids)  # expect: 2.1.0 2.3.1
        b = torch.unique(ids, dim=0)  # expect: 2.1.0
        c = ids.unique(dim=1)  # expect: 2.1.0
        d = torch.angle(x)  # expect: 2.1.0
        e = torch.view_as_real(x)  # expect: 2.1.0
        f = torch.logit(x)  # expect: 2.1.0 2.3.1
        g = x.logit()  # expect: 2.1.0 2.3.1
        h = x.exponential_()  # expect: 2.1.0
        i = torch.index_copy(x, 0, idx, src)  # expect: 2.1.0
        # operators no release registers
        j = torch.lgamma(x)  # expect: 2.1.0 2.3.1 2.12.0
        k = x.digamma()  # expect: 2.1.0 2.3.1 2.12.0
        l1 = torch.special.i1e(x)  # expect: 2.1.0 2.3.1 2.12.0
        l2 = torch.hypot(x, src)  # expect: 2.1.0 2.3.1 2.12.0
        l3 = torch.fmax(x, src)  # expect: 2.1.0 2.3.1 2.12.0
        l4 = F.huber_loss(x, src)  # expect: 2.1.0 2.3.1 2.12.0
        l5 = torch.polygamma(2, x)  # expect: 2.1.0 2.3.1 2.12.0
        l6 = torch.scatter(x, 1, idx, src, reduce="add")  # expect: 2.1.0 2.3.1 2.12.0
        l7 = torch.linalg.eig(m)  # expect: 2.1.0 2.3.1 2.12.0
        # controls: kernels on every release, or composite
        c01 = torch.relu(x)
        c02 = F.gelu(x)
        c03 = torch.matmul(x, m)
        c04 = torch.softmax(x, -1)
        c05 = F.layer_norm(x, (64,))
        c06 = torch.cat([x, x])
        c07 = torch.isin(ids, 3)
        c08 = torch.unique(ids)
        c09 = x.sort()
        c10 = sorted([3, 1]).sort(key=len)
        c11 = torch.exp(x)
        c12 = torch.sum(x)
        c13 = torch.mean(x, dim=0)
        c14 = torch.topk(x, 2)
        c15 = torch.argmax(x)
        c16 = torch.where(x > 0, x, src)
        c17 = torch.gather(x, 1, idx)
        c18 = torch.einsum("ij,jk->ik", x, m)
        c19 = F.cross_entropy(x, ids)
        c20 = F.scaled_dot_product_attention(x, x, x)
        c21 = torch.bmm(x, m)
        c22 = torch.mm(x, m)
        c23 = x.scatter(1, idx, src)
        c24 = F.dropout(x, 0.1)
        c25 = torch.clamp(x, 0, 1)
        c26 = torch.tanh(x) + torch.sigmoid(x)
        c27 = torch.stack([x, x])
        c28 = torch.cumsum(x, 0)
        c29 = self.lgamma(x)
        c30 = np.sort(np.arange(3))
        c31 = self.cross(x, src.transpose(1, 2), src.transpose(1, 2))
        c32 = self.attention(query=x, key=x, value=x)
        logger.info("torch.lgamma(x) is not called here")
        return self.linear(x)

    def lgamma(self, x):
        return x


def evaluate(model, x):
    return torch.special.i1e(model(x))  # expect: 2.1.0 2.3.1 2.12.0


def sample(latent_dist, quantizer, cov, x):
    mode = latent_dist.mode()
    weights = quantizer.dequantize(x)
    lower = torch.linalg.cholesky(cov)
    return mode, weights, lower, np.linalg.cholesky(cov)
