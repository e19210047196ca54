"""Shared fixtures: the real-trace corpus in ../shared/corpus (skipped cleanly when absent)."""

from __future__ import annotations

from support.corpus import corpus

__all__ = ["corpus"]
