"""One parser per input kind. Each exposes `parse(lines) -> result | None`.

Every parser is line-oriented: it looks at each line once with anchored or bounded
regexes (no nested quantifiers), so a 20,000-line paste parses in well under a second.
"""
