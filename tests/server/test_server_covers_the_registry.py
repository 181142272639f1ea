"""The server's provider tests (a real recording per provider, played through the vendor's
own SDK) cover every model adapter in the registry, and its provider names come from it."""

from __future__ import annotations

from test_server_vendors import RECORDINGS

from toolwire import adapters
from toolwire.server._config import REPLAY, providers


def test_every_model_adapter_is_served_in_the_provider_tests() -> None:
    assert {providers()[p][0] for p in RECORDINGS} == set(adapters.model_names())


def test_the_provider_names_are_the_model_adapters_and_their_aliases() -> None:
    names = providers()
    assert names[REPLAY] == ("", ())
    for model in adapters.model_names():
        client = adapters.client(model)
        assert names[model] == (model, tuple(client.key_env))
        for alias in client.provider_aliases:
            assert names[alias][0] == model
    assert set(names) == {
        REPLAY,
        *adapters.model_names(),
        *(a for m in adapters.model_names() for a in adapters.client(m).provider_aliases),
    }
    assert "openai" in names  # the configuration name users have, kept (Responses)
