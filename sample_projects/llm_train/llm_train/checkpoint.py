import os

import torch


def save_checkpoint(model, optimizer, scaler, step: int, directory: str) -> str:
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"step_{step:07d}.pt")
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scaler": scaler.state_dict(),
            "step": step,
            "cuda_rng": torch.cuda.get_rng_state(),
        },
        path,
    )
    return path


def load_checkpoint(path: str, model, optimizer, scaler) -> int:
    state = torch.load(path, map_location="cuda")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scaler.load_state_dict(state["scaler"])
    torch.cuda.set_rng_state(state["cuda_rng"])
    return state["step"]
