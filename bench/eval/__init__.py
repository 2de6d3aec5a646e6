"""``make eval``: how good are the reports the configured model and search write?

RACE-style scores (an LLM judge grades comprehensiveness, depth, instruction
following and readability, against a reference report when the task has one)
and FACT-style checks (each cited statement against the page it cites, fetched
through the app's own safe fetcher: is the quoted sentence in the page, and
does the judge find that the page supports it). Tasks: the small set shipped
here (``tasks.jsonl``), or DeepResearch Bench's task file.
"""
