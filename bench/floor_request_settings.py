"""The `wave -p` floor plus the settings engine the design names: pydantic-settings imported and
one small settings class built and read from the environment — what a run that reads its
settings through that engine pays before any code of its own.

Usage: python bench/floor_request_settings.py BASE_URL
"""

from __future__ import annotations

import asyncio
import sys

from floor_request import main  # the same directory: sys.path[0] when run as a script
from pydantic_settings import BaseSettings, SettingsConfigDict


class FloorSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WAVE_")

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None


if __name__ == "__main__":
    FloorSettings()
    asyncio.run(main(sys.argv[1]))
