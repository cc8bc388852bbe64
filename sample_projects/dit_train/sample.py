"""Sample latents from a trained DiT checkpoint."""
import argparse

import torch

from dit.model import DiTBlock, GaussianDiffusion


@torch.no_grad()
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--steps", type=int, default=250)
    args = parser.parse_args()

    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = DiTBlock(1024, 16).to(device)
    model.load_state_dict(torch.load(args.ckpt, map_location="cpu"))
    model.eval()
    diffusion = GaussianDiffusion(steps=args.steps)
    x = torch.randn(4, 256, 1024, device=device)
    c = torch.randn(4, 1024, device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        for _ in reversed(range(args.steps)):
            x = x - model(x, c)
    torch.cuda.synchronize()
    torch.save(x.cpu(), "samples.pt")
    del diffusion


if __name__ == "__main__":
    main()
