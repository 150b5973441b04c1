from tests.support.cli_env import env

__all__ = ["env"]
