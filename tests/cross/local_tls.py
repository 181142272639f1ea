"""A throwaway self-signed certificate for 127.0.0.1, made per test: a fake vendor serves
HTTPS with it (``FakeVendor(tls=...)``) for a client that refuses plain HTTP, and the client
trusts that one certificate only."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from toolwire.testing.fake_vendor import FakeVendor, Reply


def self_signed(directory: Path) -> tuple[ssl.SSLContext, Path]:
    """A server-side TLS context for 127.0.0.1 and the path of its certificate (PEM), the CA
    bundle a client verifies it with."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path = directory / "fake-vendor-cert.pem"
    key_path = directory / "fake-vendor-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    return context, cert_path


#: The model adapters whose SDK sends an API key over HTTPS only (botocore refuses a Bedrock
#: API key, a bearer token, on plain HTTP), each with the variable its SDK reads a CA bundle from.
KEY_OVER_HTTPS_ONLY = {"bedrock": "AWS_CA_BUNDLE"}


def fake_vendor(
    adapter: str,
    replies: list[Reply],
    directory: Path,
    monkeypatch: pytest.MonkeyPatch,
    **options: Any,
) -> FakeVendor:
    """A ``FakeVendor`` for ``adapter``'s SDK with an API key: over HTTPS (a certificate made
    in ``directory``, the SDK's CA-bundle variable set to it) where the SDK demands it."""
    variable = KEY_OVER_HTTPS_ONLY.get(adapter)
    if variable is None:
        return FakeVendor(replies, **options)
    context, cert = self_signed(directory)
    monkeypatch.setenv(variable, str(cert))
    return FakeVendor(replies, tls=context, **options)
