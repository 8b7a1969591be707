"""A UDP relay in front of an SNMP agent that a test can make fall silent, at once or mid-way through a read: the
network between the poller and a switch that stops answering (the agent behind it is real)."""

from __future__ import annotations

import selectors
import socket
import threading


class UdpRelay:
    """Forwards datagrams between clients and the agent at 127.0.0.1:`upstream_port` until it is told to stop:
    `silent` drops everything; `silence_at` (bytes, e.g. an OID's BER encoding) makes it silent from the first
    request that holds them on, so the requests before it are answered and everything after times out."""

    def __init__(self, upstream_port: int):
        self.upstream = ("127.0.0.1", upstream_port)
        self.silent = False
        self.silence_at: bytes | None = None
        self.forwarded = 0
        self._listen = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._listen.bind(("127.0.0.1", 0))
        self.port = self._listen.getsockname()[1]
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listen, selectors.EVENT_READ, None)
        self._clients: dict[tuple[str, int], socket.socket] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"udp-relay-{self.port}", daemon=True)
        self._thread.start()

    def answer_again(self) -> None:
        self.silent, self.silence_at = False, None

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for sock in [self._listen, *self._clients.values()]:
            sock.close()
        self._selector.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.1):
                sock, client = key.fileobj, key.data
                data, sender = sock.recvfrom(65535)
                if client is None:
                    self._from_client(data, sender)
                elif not self.silent:
                    self._listen.sendto(data, client)

    def _from_client(self, data: bytes, client: tuple[str, int]) -> None:
        if self.silence_at is not None and self.silence_at in data:
            self.silent = True
        if self.silent:
            return
        upstream = self._clients.get(client)
        if upstream is None:
            upstream = self._clients[client] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            upstream.connect(self.upstream)
            self._selector.register(upstream, selectors.EVENT_READ, client)
        upstream.send(data)
        self.forwarded += 1
