"""The report's own words, one module per language (``shared/report/limits_text.py``)."""
