"""One module masks secrets for everything assay prints or stores."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.config.interpolation import interpolate
from assay.redaction import (
    is_secret_name,
    literal_secrets,
    masker,
    redact,
    redact_known,
    redact_structure,
    secret_finder,
    url_secrets,
)


def test_a_known_key_variable_is_masked_anywhere_in_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ant-7c1d9e0f2a")
    assert redact("the server said: bad key ant-7c1d9e0f2a!") == "the server said: bad key ***!"


def test_shapes_are_masked_in_text_but_not_by_redact_known() -> None:
    text = "Authorization: Bearer abc.def and api_key=xyz123 and sk-abcdefghij"
    assert redact(text) == "Authorization: *** *** and api_key=*** and ***"
    assert redact_known(text) == text  # an answer may quote such text as content


def test_a_variable_used_as_a_credential_becomes_a_known_secret() -> None:
    env = {"SEARCH_KEY": "v-search-123456", "REGION_NAME": "eu-west-central",
           "PLAIN": "value-in-a-header"}
    config = {"headers": {"X-Custom": "${PLAIN}"}, "api_key": "${SEARCH_KEY}",
              "region": "${REGION_NAME}"}
    resolved, missing = interpolate(config, env)
    assert not missing and resolved["region"] == "eu-west-central"
    assert redact("v-search-123456 value-in-a-header") == "*** ***"
    assert redact("eu-west-central") == "eu-west-central"  # not a credential


def test_a_structure_masks_secret_keys_but_keeps_references() -> None:
    stored = redact_structure({"providers": {"p": {"api_key": "literal-key-123",
                                                   "token": "${TOKEN}"}},
                               "max_tokens": 100, "author": "someone"})
    assert stored == {"providers": {"p": {"api_key": "***", "token": "${TOKEN}"}},
                      "max_tokens": 100, "author": "someone"}


def test_a_masker_masks_known_secrets_and_is_none_when_none_is_known(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assay.redaction.known_secrets", list)
    assert masker() is None  # nothing to mask: stored rows are not even looked at
    monkeypatch.setattr("assay.redaction.known_secrets",
                        lambda: ["key-123456789", "key-1234"])  # longest first
    mask = masker()
    assert mask is not None
    assert mask("echo key-123456789 and key-1234!") == "echo *** and ***!"
    assert mask("api_key=whatever") == "api_key=whatever"


def test_a_variable_named_like_star_key_is_masked_as_the_readme_promises(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # issue case: STRIPE_KEY's value, printed by a target, was stored as it was
    monkeypatch.setenv("STRIPE_KEY", "rk-live-51Habc")
    monkeypatch.setenv("DEPLOY-KEY", "dk-4242424242")
    monkeypatch.setenv("MONKEY", "chimpanzee-1")
    assert redact_known("rk-live-51Habc dk-4242424242 chimpanzee-1") == "*** *** chimpanzee-1"
    assert not any(is_secret_name(name) for name in ("key", "keys", "monkey", "max_tokens"))


def test_a_command_line_keeps_its_flags_and_loses_the_secrets_after_them() -> None:
    config = {"command": ["agent", "--api-key", "ak-literal-1", "--token=tk-literal-2",
                          "--token=${TOKEN}", "--key", "-v", "--max-tokens", "400"],
              "headers": {"Authorization": "Bearer bt-literal-3"}}
    assert redact_structure(config)["command"] == [
        "agent", "--api-key", "***", "--token=***", "--token=${TOKEN}", "--key", "-v",
        "--max-tokens", "400"]
    assert literal_secrets(config) == ["ak-literal-1", "tk-literal-2", "Bearer bt-literal-3",
                                       "bt-literal-3"]


def test_every_literal_secret_of_a_nested_config_is_masked_where_it_is_written() -> None:
    config = {"servers": [{"command": ["srv", "--api-key", "ak-nested-1"],
                           "env": {"API_TOKEN": "tk-nested-2", "PATH_HINT": "x"}},
                          {"args": [["--secret=sc-nested-3"]]}],
              "headers": {"Authorization": "Bearer ${TOKEN}"}}
    stored = redact_structure(config)
    assert literal_secrets(config) == ["ak-nested-1", "tk-nested-2", "tk-nested-2", "sc-nested-3"]
    assert stored == {"servers": [{"command": ["srv", "--api-key", "***"],
                                   "env": {"API_TOKEN": "***", "PATH_HINT": "x"}},
                                  {"args": [["--secret=***"]]}],
                      "headers": {"Authorization": "***"}}
    assert config["servers"][0]["env"]["API_TOKEN"] == "tk-nested-2"  # type: ignore[index]


def test_a_secret_finder_tells_whether_a_text_holds_a_known_secret(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ASSAY_TEST_TOKEN", "tk-test-FINDME4321")
    holds_secret = secret_finder()
    assert holds_secret is not None
    assert holds_secret('{"text": "tk-test-FINDME4321"}')
    assert not holds_secret('{"text": "nothing here"}')


def test_a_url_keeps_its_user_and_parameters_and_loses_its_password_and_keys() -> None:
    url = ("http://bob:Hunter2Secret@127.0.0.1:9/ask?api_key=QueryKey123456"
           "&sig=SigValue7777&page=2")
    assert redact(f"cannot reach {url}: refused") == (
        "cannot reach http://bob:***@127.0.0.1:9/ask?api_key=***&sig=***&page=2: refused")
    assert redact_structure({"target": {"url": url}}) == {
        "target": {"url": "http://bob:***@127.0.0.1:9/ask?api_key=***&sig=***&page=2"}}
    assert literal_secrets({"target": {"url": url}}) == [
        "Hunter2Secret", "QueryKey123456", "SigValue7777"]


def test_a_url_without_secrets_or_with_references_is_left_as_written() -> None:
    plain = "see https://example.com/docs?page=2#top and http://localhost:8080/v1"
    assert redact(plain) == plain
    referenced = {"url": "https://me:${PASSWORD}@host/v1?key=${SEARCH}&q=1"}
    assert redact_structure(referenced) == referenced
    assert literal_secrets(referenced) == []


def test_a_url_password_with_an_unescaped_at_sign_is_masked_whole() -> None:
    url = "http://bob:p@ssw0rdXY@127.0.0.1:9/ask"
    assert redact(f"cannot reach {url}: refused") == (
        "cannot reach http://bob:***@127.0.0.1:9/ask: refused")
    assert literal_secrets({"url": url}) == ["p@ssw0rdXY"]


def test_a_signed_urls_vendor_signature_and_an_encoded_key_name_are_masked() -> None:
    url = ("https://bucket.example/o?X-Amz-Signature=SigSecret7777&api%5Fkey=EncKey5555"
           "&X-Goog-Signature=GoogSig8888&country_code=US&page=2")
    assert redact(url) == ("https://bucket.example/o?X-Amz-Signature=***&api%5Fkey=***"
                           "&X-Goog-Signature=***&country_code=US&page=2")
    assert literal_secrets({"url": url}) == ["SigSecret7777", "EncKey5555", "GoogSig8888"]


def test_a_masked_key_at_the_end_of_a_url_keeps_the_punctuation_after_it() -> None:
    assert redact("cannot reach http://h:9/ask?api_key=QueryKey123: refused") == (
        "cannot reach http://h:9/ask?api_key=***: refused")
    assert redact("(see http://h/?token=Tok123456), then retry.") == (
        "(see http://h/?token=***), then retry.")


def test_a_url_s_sort_key_or_primary_key_is_shown_so_the_error_names_the_url() -> None:
    # issue case: ?sort_key=created_at became ?sort_key=*** in 'cannot reach ...'
    assert redact("cannot reach http://h:9/rows?sort_key=created_at&primary_key=id: refused") == (
        "cannot reach http://h:9/rows?sort_key=created_at&primary_key=id: refused")
    assert redact("http://h/?user_key=UserKey123&app_key=AppKey123&order-key=name") == (
        "http://h/?user_key=***&app_key=***&order-key=name")


def test_a_sort_key_in_a_config_is_stored_as_written_and_never_becomes_a_secret() -> None:
    """`primary_key: id` in a target's request body was stored as `***`, and `id` became a
    secret masked in every text after it; a URL's `?primary_key=id` was shown, so the two
    disagreed on one name."""
    body = {"json": {"primary_key": "order_id", "sort_key": "created_at",
                     "app_key": "AppKey123"}}
    assert redact_structure(body) == {"json": {"primary_key": "order_id",
                                               "sort_key": "created_at", "app_key": "***"}}
    assert set(literal_secrets(body)) == {"AppKey123"}


_SECRET_CHARS = st.text(alphabet=string.ascii_letters + string.digits + "-._~!$*+", min_size=6,
                        max_size=24)
_PLAIN = st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=10)


_SECRET_PARAMETERS = st.sampled_from([
    "api_key", "apikey", "x-api-key", "API-KEY", "access_key", "secret_key", "private_key",
    "key", "sig", "signature", "X-Amz-Signature", "token", "access_token", "password",
    "user_key", "app_key"])
_PLAIN_PARAMETERS = st.sampled_from([
    "page", "sort_key", "primary_key", "partition-key", "Order_Key", "keys", "monkey"])


@settings(max_examples=300, deadline=None)
@given(user=_PLAIN, password=_SECRET_CHARS, key=_SECRET_CHARS, page=_PLAIN, host=_PLAIN,
       name=_SECRET_PARAMETERS, plain=_PLAIN_PARAMETERS,
       before=st.sampled_from(["cannot reach ", "(", "url=", ""]),
       after=st.sampled_from([": refused", ")", ", then", " ConnectError", ""]))
def test_a_url_s_password_and_key_never_survive_redaction_and_its_other_parts_do(
        user: str, password: str, key: str, page: str, host: str, name: str, plain: str,
        before: str, after: str) -> None:
    url = f"https://{user}:{password}@{host}.example/v1?{name}={key}&{plain}={page}"
    shown = redact(before + url + after)
    for secret in (password, key):
        assert secret not in shown.replace(f"{user}:***@{host}", "").replace(
            f"{plain}={page}", "")
    assert f"https://{user}:***@{host}.example/v1?{name}=***&{plain}={page}" in shown
    assert redact(shown) == shown  # masking twice changes nothing
    assert sorted(url_secrets(url)) == sorted([password, key])


def test_a_files_text_has_every_value_under_a_secrets_name_masked_whatever_its_shape() -> None:
    """`.env`, YAML and JSON write a key under its name; names of data and of counts stay."""
    from assay.redaction import redact_file_text

    text = ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG\n"
            "DATABASE_URL=postgres://app:pw123456@db/app\n"
            '{"password": "hunter2hunter", "sort_key": "created_at", "max_tokens": 600}\n'
            "token: abc\nprimary_key: user_id\n")
    assert redact_file_text(text) == (
        "export AWS_SECRET_ACCESS_KEY=***\n"
        "DATABASE_URL=postgres://app:***@db/app\n"
        '{"password": "***", "sort_key": "created_at", "max_tokens": 600}\n'
        "token: abc\nprimary_key: user_id\n")
