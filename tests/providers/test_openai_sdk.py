"""The openai client without the SDK's API types, and the whole SDK for whoever asks for it.

Each check runs in a fresh interpreter: the test process itself has usually
imported `openai` whole already, and then nothing is deferred.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run_fresh(code: str) -> str:
    """Run `code` in a new interpreter; its standard output, after checking it succeeded."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_client_comes_without_the_api_types():
    out = run_fresh("""
        import sys
        from assay.providers.openai_sdk import AsyncOpenAI
        client = AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
        print(client.base_url, "openai.types.chat" in sys.modules,
              "openai.lib.streaming" in sys.modules)
    """)
    assert out == "http://127.0.0.1:9/v1/ False False"


def test_importing_openai_afterwards_gets_the_whole_sdk_with_the_same_classes():
    out = run_fresh("""
        from assay.providers import openai_sdk
        import openai
        from openai.types.chat import ChatCompletion
        print(openai.AsyncOpenAI is openai_sdk.AsyncOpenAI,
              openai.APIStatusError is openai_sdk.exceptions.APIStatusError,
              openai.types.Completion.__name__, ChatCompletion.__name__,
              callable(openai.OpenAI), openai.__version__ != "")
    """)
    assert out == "True True Completion ChatCompletion True True"


def test_a_name_the_sdk_lacks_is_still_an_attribute_error():
    out = run_fresh("""
        from assay.providers import openai_sdk
        import openai
        try:
            openai.no_such_name
        except AttributeError as exc:
            print("AttributeError", exc)
    """)
    assert out == "AttributeError module 'openai' has no attribute 'no_such_name'"


def test_an_sdk_imported_before_is_kept_as_it_is():
    out = run_fresh("""
        import openai
        whole = openai
        from assay.providers import openai_sdk
        import sys
        print(sys.modules["openai"] is whole, openai_sdk.AsyncOpenAI is openai.AsyncOpenAI)
    """)
    assert out == "True True"


def test_httpx_comes_without_its_command_line_which_stays_importable():
    out = run_fresh("""
        import sys
        from assay.providers import openai_sdk
        print("httpx._main" in sys.modules, "pygments" in sys.modules)
        from httpx._main import main
        print(main.name)
    """)
    assert out.splitlines() == ["False False", "main"]
