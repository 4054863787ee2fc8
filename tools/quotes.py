"""Users' own price quotes from a YAML or CSV file — read safely, parsed once.

WHY a module of its own: the file is operator input (a `--quotes` flag or env `GPU_ADVISOR_QUOTES`),
never something the LLM or a page visitor names, and it is hostile-input territory:
- Excel on Chinese Windows saves CSV as GB18030/GBK, "Unicode text" as tab-separated UTF-16 with a
  BOM, and "CSV UTF-8" with a UTF-8 BOM — all are read (tools/textcodec.py);
- regular files only, size-capped before reading (no /dev/zero, FIFO, directory);
- YAML anchors/aliases are refused before anything is built (a 1 KB "billion laughs" file otherwise
  expands to gigabytes), nesting is capped, and a top-level scalar, a bad row or an invalid date gives
  a bilingual error naming the line — never a traceback, never the file's text;
- a plan prices dozens of options: the parsed file is cached by (path, mtime, size).

When a tool runs for the LLM or the page (`tools.registry.operator_paths_allowed()` is False), a
broken operator file is reported without its path or lines (they would reach the LLM endpoint).
"""

from __future__ import annotations

import csv
import datetime as dt
import logging
import os
import threading
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from tools.errors import ToolInputError, from_validation_error
from tools.textcodec import decode_text, read_regular_file

log = logging.getLogger(__name__)

MAX_QUOTES_BYTES = 1_000_000  # a quotes file is a few rows; 1 MB is ~20,000 of them
MAX_QUOTES_ROWS = 20_000
MAX_YAML_DEPTH = 8  # {quotes: [{gpu: …}]} needs 3


class Quote(BaseModel):
    gpu: str
    hourly_cny: float | None = Field(None, gt=0, le=1e7)
    monthly_cny: float | None = Field(None, gt=0, le=1e9)
    provider: str | None = Field(None, max_length=200)
    date: str | None = None

    @field_validator("date", mode="before")
    @classmethod
    def _iso_date(cls, value: object) -> object:
        """YYYY-MM-DD or YYYY-MM: a quote's date is shown as `as_of`, so it must be a real date."""
        if value is None or value == "":
            return None
        if isinstance(value, (dt.date, dt.datetime)):
            return value.isoformat()[:10]
        text = str(value).strip()
        for fmt in ("%Y-%m-%d", "%Y-%m", "%Y/%m/%d"):
            try:
                dt.datetime.strptime(text, fmt)
                return text.replace("/", "-")
            except ValueError:
                continue
        raise ValueError(f"invalid date {text[:20]!r} (use YYYY-MM-DD)")


def _err(zh: str, en: str) -> ToolInputError:
    return ToolInputError(zh, en, field="quotes_file")


def _safe_yaml(text: str) -> Any:
    """safe_load without aliases or deep nesting (checked on the token stream, before composing)."""
    depth = 0
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, (yaml.AliasToken, yaml.AnchorToken)):
                line = token.start_mark.line + 1
                raise _err(
                    f"报价文件第 {line} 行用了 YAML 锚点/别名（& / *），不支持",
                    f"Quotes file line {line}: YAML anchors/aliases (& / *) are not supported",
                )
            if isinstance(
                token,
                (
                    yaml.BlockMappingStartToken,
                    yaml.BlockSequenceStartToken,
                    yaml.FlowMappingStartToken,
                    yaml.FlowSequenceStartToken,
                ),
            ):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    line = token.start_mark.line + 1
                    raise _err(
                        f"报价文件第 {line} 行嵌套太深（上限 {MAX_YAML_DEPTH} 层）",
                        f"Quotes file line {line}: nested too deeply (limit {MAX_YAML_DEPTH} levels)",
                    )
            elif isinstance(token, (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)):
                depth -= 1
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"第 {mark.line + 1} 行" if mark else ""
        line_en = f" line {mark.line + 1}" if mark else ""
        problem = str(getattr(exc, "problem", "") or "syntax error")[:120]
        raise _err(
            f"报价文件{line}不是有效的 YAML（{problem}）", f"Quotes file{line_en} is not valid YAML ({problem})"
        ) from None
    except ValueError as exc:  # e.g. `date: 2026-13-45` fails in the timestamp constructor
        raise _err(
            f"报价文件里有无效的值（{str(exc)[:80]}）", f"Quotes file has an invalid value ({str(exc)[:80]})"
        ) from None
    return data, node


def _yaml_items(text: str) -> list[tuple[int, Any]]:
    data, node = _safe_yaml(text)
    if data is None:
        return []
    items_node = node
    if isinstance(data, dict):
        if "quotes" not in data:
            raise _err(
                "报价文件应是报价列表，或含 quotes: 列表的映射",
                "The quotes file must be a list, or a mapping with quotes:",
            )
        items_node = next((v for k, v in node.value if getattr(k, "value", None) == "quotes"), node)
        data = data["quotes"]
    if not isinstance(data, list):
        raise _err(
            "报价文件的内容应是报价列表（每项含 gpu、hourly_cny 或 monthly_cny）",
            "The quotes file must hold a list of quotes (each with gpu and hourly_cny or monthly_cny)",
        )
    lines = [n.start_mark.line + 1 for n in getattr(items_node, "value", [])]
    return [(lines[i] if i < len(lines) else i + 1, item) for i, item in enumerate(data)]


def _csv_items(text: str) -> list[tuple[int, Any]]:
    first = text.split("\n", 1)[0]
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    try:
        reader = csv.DictReader(text.splitlines(), delimiter=delimiter)
        rows = []
        for row in reader:
            rows.append((reader.line_num, {k: v for k, v in row.items() if k is not None}))
            if len(rows) > MAX_QUOTES_ROWS:
                break
    except csv.Error as exc:
        raise _err(f"报价 CSV 格式有误（{str(exc)[:80]}）", f"Cannot parse the quotes CSV ({str(exc)[:80]})") from None
    return rows


def parse_quotes(text: str, *, csv_format: bool) -> dict[str, Quote]:
    """Quotes keyed by resolved GPU id; each problem names its line."""
    from tools.gpus import resolve_gpu

    items = _csv_items(text) if csv_format else _yaml_items(text)
    if len(items) > MAX_QUOTES_ROWS:
        raise _err(f"报价文件行数太多（上限 {MAX_QUOTES_ROWS:,}）", f"Too many quotes (limit {MAX_QUOTES_ROWS:,})")
    quotes: dict[str, Quote] = {}
    for line, item in items:
        if not isinstance(item, dict):
            raise _err(
                f"报价文件第 {line} 行应是一条报价（gpu、hourly_cny…）",
                f"Quotes file line {line}: expected a quote (gpu, hourly_cny …)",
            )
        clean = {
            str(k).strip().lstrip("\ufeff"): (v.strip() if isinstance(v, str) else v) for k, v in item.items() if k
        }
        for k in ("hourly_cny", "monthly_cny", "provider", "date"):
            if clean.get(k) in ("", None):
                clean[k] = None
        try:
            q = Quote.model_validate(clean)
            quotes[resolve_gpu(q.gpu).id] = q
        except ValidationError as exc:
            bad = from_validation_error(exc)
            raise _err(f"报价文件第 {line} 行：{bad.zh}", f"Quotes file line {line}: {bad.en}") from None
        except ToolInputError as exc:
            raise _err(f"报价文件第 {line} 行：{exc.zh}", f"Quotes file line {line}: {exc.en}") from None
    return quotes


_CACHE: dict[tuple[str, int, int], dict[str, Quote]] = {}
_LOCK = threading.Lock()


def _load(path: str | Path) -> dict[str, Quote]:
    p = Path(path).expanduser()
    try:
        info = p.stat()
        key = (str(p.resolve()), info.st_mtime_ns, info.st_size)
    except OSError:
        key = None
    if key is not None:
        with _LOCK:
            if key in _CACHE:
                return _CACHE[key]
    data = read_regular_file(p, max_bytes=MAX_QUOTES_BYTES, field="quotes_file")
    quotes = parse_quotes(decode_text(data).lstrip("\ufeff"), csv_format=p.suffix.lower() in (".csv", ".tsv", ".txt"))
    if key is not None:
        with _LOCK:
            if len(_CACHE) > 32:
                _CACHE.clear()
            _CACHE[key] = quotes
    return quotes


def load_quotes(path: str | Path) -> dict[str, Quote]:
    """Read a user's quotes from YAML (list of mappings, or {quotes: [...]}) or CSV/TSV
    (header: gpu,hourly_cny,monthly_cny,provider,date). Keys are resolved GPU ids."""
    from tools.registry import operator_paths_allowed

    try:
        return _load(path)
    except ToolInputError as exc:
        if operator_paths_allowed():
            raise
        # for the LLM / page: no path, no line, no file text — the operator reads the log
        log.warning("quotes file %s: %s", os.fspath(path), exc.en)
        raise _err(
            "运营方配置的报价文件无法使用（详情见服务器日志）",
            "The operator's quotes file cannot be used (details in the server log)",
        ) from None


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()
