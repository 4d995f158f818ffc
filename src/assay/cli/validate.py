"""`assay validate CONFIG`: check a config and its dataset without running anything."""

from __future__ import annotations

import click

from assay.cli.common import GivenPath, console, store_given, store_option
from assay.reports.console import print_warning


@click.command("validate")
@click.argument("configs", nargs=-1, required=True, type=GivenPath())
@store_option
def command(configs: tuple[str, ...], store_url: str | None) -> None:
    """Check CONFIG and its dataset: keys, types, references, every dataset line, user code.

    Takes what `assay run` takes: several configs, globs and suite files (a YAML file with a
    `suite:` list of configs), and checks every config they name, whatever the others'
    problems. A config that sets `judge.require_calibration` is checked against the
    calibrations in the store, as `assay run` checks it.
    """
    from assay.api.review_checks import unfound_baselines
    from assay.config.suite_file import expand_configs
    from assay.reports.text import markup_free
    from assay.runner.preflight import configs_invalid, preflight_each
    from assay.wording import plural

    out = console()
    paths, _is_suite = expand_configs(configs)
    passed, failed = preflight_each(paths, store_url=store_url,
                                    store_words=store_given(store_url))
    unfound = unfound_baselines([(path, checked.loaded) for path, checked in passed],
                                store_url)
    if unfound:  # refused as `assay run` refuses them, in the order of the configs
        passed = [(path, checked) for path, checked in passed if path not in unfound]
        refused = {**dict(failed), **unfound}
        failed = [(path, refused[path]) for path in paths if path in refused]
    for config_path, checked in passed:
        plan, scan = checked.plan, checked.scan
        out.print("[green]ok[/green] " + markup_free(
                  f"{config_path}: experiment '{checked.loaded.name}', "
                  f"{plural(scan.count, 'case')} ({scan.layout}), "
                  f"{plural(len(plan.conditions), 'condition')}, "
                  f"{plural(len(plan.scorers), 'scorer')}, {plural(plan.total, 'trial')}"))
        for warning in checked.warnings:
            print_warning(out, warning)
    if len(paths) == 1 and failed:
        raise failed[0][1]  # one config: its own error, as `assay run` gives it
    if failed:
        raise configs_invalid(failed, len(paths))
