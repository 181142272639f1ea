"""Anthropic's ``CLIENT`` (``adapters/anthropic/client.py``) on real SDK clients: which it
claims, sync or async, and the credentials it keeps out of every text, the Bedrock-hosted
client's AWS keys included."""

from __future__ import annotations

import anthropic
import openai

from toolwire import adapters
from toolwire.adapters.anthropic.client import CLIENT, _is_bedrock

KEY = "sk-ant-test-0123456789abcdef"
AWS = {"aws_access_key": "AKIAFAKEFAKE1234", "aws_secret_key": "secret-aws-0123456789"}


def test_it_is_the_registry_s_client() -> None:
    assert adapters.client("anthropic") is CLIENT


def test_it_claims_anthropic_clients_and_the_bedrock_hosted_ones_only() -> None:
    plain = anthropic.Anthropic(api_key=KEY)
    bedrock = anthropic.AnthropicBedrock(
        **AWS, aws_session_token="tok-0123456789", aws_region="us-east-1"
    )
    other = openai.OpenAI(api_key=KEY)
    assert CLIENT.claims(plain, None) and CLIENT.claims(bedrock, None)
    assert not CLIENT.claims(other, None) and not CLIENT.claims(object(), None)
    assert _is_bedrock(bedrock) and not _is_bedrock(plain)
    assert not CLIENT.is_async(plain) and CLIENT.is_async(anthropic.AsyncAnthropic(api_key=KEY))
    assert KEY in CLIENT.secrets(plain) and all(KEY in v for v in CLIENT.secrets(plain))
    assert {*AWS.values(), "tok-0123456789"} <= set(CLIENT.secrets(bedrock))
    for client in (plain, bedrock, other):
        client.close()
