"""Knowledge packs for a run: opened once, and retrieved passages put in front of a question.

A condition with `context: {pack: go-docs, top_k: 5}` gets the top passages
for the case's question in its prompt. The source ids of those passages are
recorded in `Output.metadata["context"]`, with the content hash of the pack's
documents, so a judge or a reader can check which passages (of which version
of the pack) an answer could cite.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.case import content_text
from assay.context.pack_config import ContextConfig, PackConfig
from assay.errors import UserError

if TYPE_CHECKING:
    from assay.context.pack_index import PackIndex
    from assay.services import Services

CONTEXT_INSTRUCTIONS = (
    "Use the reference passages below to answer the question. Each passage is "
    "headed by its source id in square brackets; cite the source ids you rely on."
)


def get_pack(services: Services, name: str) -> PackIndex:
    """The `PackIndex` of a pack declared under `packs:`, built or loaded once per run."""
    from assay.context.pack_index import DEFAULT_CACHE_ROOT, PackIndex

    opened = services.packs
    if name not in opened:
        config, folder = declared_pack(services, name)
        # The index cache sits beside the store: `.assay/packs/` in the working directory.
        opened[name] = PackIndex.open(folder, name=name, patterns=config.include,
                                      chunk_chars=config.chunk_chars,
                                      cache_root=DEFAULT_CACHE_ROOT,
                                      digest=services.pack_digests.get(name))
        for line in opened[name].left_out_said():
            services.warn(line)
    return opened[name]


def declared_pack(services: Services, name: str) -> tuple[PackConfig, Path]:
    """A pack declared under `packs:`, with its folder resolved against the config's."""
    declared = dict(services.config.packs if services.config is not None else {})
    if name not in declared:
        known = ", ".join(sorted(declared)) or "none declared"
        raise UserError(f"unknown knowledge pack '{name}' (declared: {known})")
    config = PackConfig.model_validate(declared[name])
    folder: Path = services.resolve_path(config.path)
    return config, folder


def pack_version(services: Services, name: str) -> tuple[Path, str]:
    """A declared pack's folder and the content hash of its documents now, the one each
    trial that reads it records: a run keeps it, so a resume can tell an edited pack."""
    from assay.context.pack_config import DEFAULT_PATTERNS
    from assay.context.pack_index import content_hash

    config, folder = declared_pack(services, name)
    if name not in services.pack_digests:
        services.pack_digests[name] = content_hash(  # as `PackIndex.open` would take it
            folder.resolve(), config.include or list(DEFAULT_PATTERNS), config.chunk_chars)
    return folder, services.pack_digests[name]


def open_context_pack(services: Services, condition: Any) -> None:
    """Index the condition's `context:` pack now, when its target starts: a pack that cannot
    be read (no document in it is text) stops the run before any trial is paid for, not in each
    trial of the condition after the others have run."""
    config = context_config(condition)
    if config is not None:
        get_pack(services, config.pack)


def used_packs(condition: Any) -> list[str]:
    """The packs a condition reads: its `context:` pack and its `pack:NAME` MCP servers."""
    names = [server[5:] for server in getattr(condition, "mcp_servers", [])
             if server.startswith("pack:")]
    pack = (getattr(condition, "context", None) or {}).get("pack")
    return [pack, *names] if isinstance(pack, str) else names


def context_config(condition: Any) -> ContextConfig | None:
    """The condition's `context:` as a validated `ContextConfig`, or None."""
    raw = getattr(condition, "context", None)
    if raw is None:
        return None
    return raw if isinstance(raw, ContextConfig) else ContextConfig.model_validate(raw)


def inject_context(case: Any, condition: Any, services: Any,
                   messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Messages with the retrieved passages added to the last user turn, and the metadata
    to record under `Output.metadata["context"]`. Without `context:` both pass through."""
    config = context_config(condition)
    if config is None:
        return messages, {}
    index = get_pack(services, config.pack)
    query = case.input_text
    passages = index.search(query, config.top_k)
    block = _passages_block(passages)
    updated = copy.deepcopy(messages)
    for message in reversed(updated):
        if message.get("role") == "user":
            message["content"] = f"{block}\n\nQuestion:\n{content_text(message.get('content'))}"
            break
    else:
        updated.append({"role": "user", "content": block})
    metadata = {
        "pack": config.pack,
        "content_hash": index.content_hash,
        "top_k": config.top_k,
        "source_ids": [p.source_id for p in passages],
        "scores": [p.score for p in passages],
    }
    return updated, metadata


def _passages_block(passages: list[Any]) -> str:
    if not passages:
        return f"{CONTEXT_INSTRUCTIONS}\n\n(No passage in the pack matched this question.)"
    body = "\n\n".join(f"[{p.source_id}] {p.title}\n{p.text}" for p in passages)
    return f"{CONTEXT_INSTRUCTIONS}\n\n<passages>\n{body}\n</passages>"
