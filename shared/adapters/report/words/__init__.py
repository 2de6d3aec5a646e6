"""The report's own words, one module per language (``shared/adapters/report/limits_text.py``)."""
