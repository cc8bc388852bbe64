"""Report templates (jinja2), their stylesheet and script, and the UI strings, one file per language."""

from pathlib import Path

TEMPLATES_DIR = Path(__file__).resolve().parent
STRINGS_DIR = TEMPLATES_DIR / "strings"
