"""Ray actors that generate rollouts on their own devices, placed in one placement group."""
import subprocess

import ray
from ray.util.placement_group import placement_group


@ray.remote(num_gpus=1)
class RolloutWorker:
    def device_ids(self):
        return ray.get_gpu_ids()

    def device_report(self):
        return subprocess.run(["nvidia-smi", "--query-gpu=name,memory.used", "--format=csv"], capture_output=True, text=True).stdout


def rollout_group(workers):
    bundles = [{"CPU": 4, "GPU": 1} for _ in range(workers)]
    group = placement_group(bundles, strategy="PACK")
    ray.get(group.ready())
    return [RolloutWorker.options(placement_group=group).remote() for _ in range(workers)]


if __name__ == "__main__":
    ray.init()
    for worker in rollout_group(2):
        print(ray.get(worker.device_report.remote()))
