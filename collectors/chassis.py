"""The chassis a device is made of, from ENTITY-MIB (RFC 6933): every physical entity of class chassis(3) (one for
a plain switch, one a member for a stack) with its description, name, model, serial number, maker and hardware,
firmware and software revisions; read with the daily layer-2 read, so an inventory (and a search by serial
number) knows what is in the rack. entPhysicalClass (1.3.6.1.2.1.47.1.1.1.1.5) is walked; the chassis' other
columns (.2 descr, .7 name, .8 hardware rev, .9 firmware rev, .10 software rev, .11 serial, .12 maker, .13 model)
are asked by GET."""

from __future__ import annotations

from dataclasses import dataclass

from collectors.l2text import text_of
from collectors.sessions import Session
from collectors.snmptypes import SnmpError

ENTITY = "1.3.6.1.2.1.47.1.1.1.1"
CLASS = f"{ENTITY}.5"
COLUMNS = {
    "description": 2, "name": 7, "hardware": 8, "firmware": 9, "software": 10, "serial": 11, "maker": 12, "model": 13,
}  # fmt: skip
CHASSIS = 3  # entPhysicalClass chassis(3)
MAX_ENTITIES = 20_000
MAX_CHASSIS = 64  # a stack of 8 is usual; a virtual chassis of more still fits
PER_GET = 24  # objects asked in one GET: three chassis' columns, well inside a datagram


@dataclass(frozen=True)
class Chassis:
    """One chassis as the device describes it ("" where it says nothing)."""

    index: int
    description: str = ""
    name: str = ""
    hardware: str = ""
    firmware: str = ""
    software: str = ""
    serial: str = ""
    maker: str = ""
    model: str = ""


async def read_chassis(session: Session) -> tuple[list[Chassis], list[str]]:
    """(the device's chassis in entity order, what could not be read); none where ENTITY-MIB is not served."""
    try:
        classes = await session.walk([CLASS], MAX_ENTITIES)
        indexes = sorted(
            index[0]
            for index, value in classes[CLASS].items()
            if len(index) == 1 and value.kind == "int" and value.value == CHASSIS
        )[:MAX_CHASSIS]
        asked = [f"{ENTITY}.{column}.{index}" for index in indexes for column in COLUMNS.values()]
        values = {}
        for start in range(0, len(asked), PER_GET):
            values |= await session.get(asked[start : start + PER_GET])
    except SnmpError as exc:
        return [], [f"chassis: {exc}"]
    return [
        Chassis(index, **{field: text_of(values.get(f"{ENTITY}.{n}.{index}")) for field, n in COLUMNS.items()})
        for index in indexes
    ], []
