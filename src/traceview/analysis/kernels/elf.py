"""Reading and loading the ELF64 little-endian objects of the native kernels (kernels/native.py)
without llvmlite: importing llvmlite and making its engine took 35–46 ms of a `traceview -r`
run, about a tenth of it (benchmarks/RESULTS.md); mapping an object here takes well under a
millisecond.

`load` lays the object's allocated sections out in fresh anonymous memory, code on pages of
its own, applies its relocations and makes the code pages read-and-execute (never writable and
executable at once). It handles the x86-64 objects numba's large code model makes (absolute
and PC-relative 64-bit relocations, and the 32-bit ones when they fit); anything else raises
`Unsupported`, and the caller loads the object with llvmlite instead. Call frame information
(`.eh_frame`) is not registered: a kernel raises no C++ exception and is not unwound through.
"""

from __future__ import annotations

import ctypes
import mmap
import struct
from collections.abc import Callable
from typing import NamedTuple

X86_64 = 62  # e_machine
_SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS = 2, 4, 8
_SHF_WRITE, _SHF_ALLOC, _SHF_EXEC = 1, 2, 4
_SHN_UNDEF, _SHN_LORESERVE, _SHN_ABS = 0, 0xFF00, 0xFFF1
_R_64, _R_PC32, _R_32, _R_32S, _R_PLT32, _R_PC64 = 1, 2, 10, 11, 4, 24
_PAGE = mmap.PAGESIZE


class Unsupported(ValueError):
    """An object `load` does not handle (another machine, layout or relocation)."""


class Section(NamedTuple):
    name: int
    kind: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    entsize: int


class Symbol(NamedTuple):
    name: str
    value: int
    section: int


def sections(obj: bytes) -> list[Section]:
    """The section headers of an ELF64 little-endian object (Unsupported otherwise)."""
    if obj[:4] != b"\x7fELF" or obj[4:6] != b"\x02\x01":
        raise Unsupported("not an ELF64 little-endian object")
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    if shentsize < 64 or shoff + shnum * shentsize > len(obj):
        raise Unsupported("section headers past the object's end")
    out = []
    for i in range(shnum):
        name, kind, flags, _, offset, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", obj, shoff + i * shentsize
        )
        out.append(Section(name, kind, flags, offset, size, link, info, align, entsize))
    return out


def symbols(obj: bytes, heads: list[Section]) -> list[Symbol]:
    """The symbol table's entries, in order (the first, null one included)."""
    for head in heads:
        if head.kind == _SHT_SYMTAB:
            strtab = heads[head.link]
            strings = obj[strtab.offset : strtab.offset + strtab.size]
            out = []
            for at in range(head.offset, head.offset + head.size, head.entsize):
                name, _, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", obj, at)
                text = strings[name : strings.index(b"\0", name)].decode() if name else ""
                out.append(Symbol(text, value, shndx))
            return out
    return []


def undefined(obj: bytes) -> list[str]:
    """The symbols the object uses but does not define."""
    found = symbols(obj, sections(obj))
    return sorted({s.name for s in found if s.section == _SHN_UNDEF and s.name})


class Loaded(NamedTuple):
    """An object in memory: the address of the symbol asked for and the mappings it lives in
    (kept for the process's life: its code may be called at any time)."""

    address: int
    mappings: tuple[mmap.mmap, ...]


def load(obj: bytes, symbol: str, resolve: Callable[[str], int]) -> Loaded:
    """Map the object, its undefined symbols' addresses given by `resolve`, and return where
    `symbol` is (see the module docstring); Unsupported also for an object that does not
    parse."""
    try:
        return _mapped(obj, symbol, resolve)
    except Unsupported:
        raise
    except (struct.error, IndexError, KeyError, ValueError) as e:  # (UnicodeDecodeError too)
        raise Unsupported(f"a malformed object: {e}") from e


def _mapped(obj: bytes, symbol: str, resolve: Callable[[str], int]) -> Loaded:
    (machine,) = struct.unpack_from("<H", obj, 0x12)
    if machine != X86_64:
        raise Unsupported(f"machine {machine}")
    heads = sections(obj)
    syms = symbols(obj, heads)
    # where each allocated section goes: code, then the rest, each part from a page
    place: dict[int, tuple[int, int]] = {}  # section -> (part, offset in part)
    sizes = [0, 0]
    for i, head in enumerate(heads):
        if not head.flags & _SHF_ALLOC:
            continue
        if head.flags & _SHF_EXEC and head.flags & _SHF_WRITE:
            raise Unsupported("a writable code section")
        if head.name and _name(obj, heads, head) == ".eh_frame":
            continue
        part = 0 if head.flags & _SHF_EXEC else 1
        align = max(head.align, 1)
        at = -(-sizes[part] // align) * align
        place[i] = part, at
        sizes[part] = at + head.size
    maps = tuple(_anonymous(size) for size in sizes)
    bases = [_address(m) for m in maps]
    for i, (part, at) in place.items():
        head = heads[i]
        if head.kind != _SHT_NOBITS:
            maps[part][at : at + head.size] = obj[head.offset : head.offset + head.size]

    def address_of(sym: Symbol) -> int:
        if sym.section == _SHN_UNDEF:
            return resolve(sym.name)
        if sym.section == _SHN_ABS:
            return sym.value
        if sym.section >= _SHN_LORESERVE or sym.section not in place:
            raise Unsupported(f"symbol {sym.name!r} in section {sym.section}")
        part, at = place[sym.section]
        return bases[part] + at + sym.value

    for head in heads:
        if head.kind != _SHT_RELA or head.info not in place:
            continue
        part, at = place[head.info]
        where, memory = bases[part] + at, maps[part]
        for offset in range(head.offset, head.offset + head.size, head.entsize):
            r_offset, r_info, addend = struct.unpack_from("<QQq", obj, offset)
            kind, target = r_info & 0xFFFFFFFF, r_info >> 32
            value = address_of(syms[target]) + addend
            _relocate(memory, at + r_offset, kind, value, where + r_offset)
    _protect(bases[0], sizes[0], mmap.PROT_READ | mmap.PROT_EXEC)  # (the data stay writable)
    for sym in syms:
        if sym.name == symbol and sym.section != _SHN_UNDEF:
            return Loaded(address_of(sym), maps)
    raise Unsupported(f"no {symbol} in the object")


def _name(obj: bytes, heads: list[Section], head: Section) -> str:
    """A section's name (from the section names' string table, `e_shstrndx`)."""
    (index,) = struct.unpack_from("<H", obj, 0x3E)
    table = heads[index]
    start = table.offset + head.name
    return obj[start : obj.index(b"\0", start)].decode()


def _relocate(memory: mmap.mmap, at: int, kind: int, value: int, place: int) -> None:
    """Write relocation `kind` at offset `at` of `memory` (`place`: its address)."""
    if kind == _R_64:
        struct.pack_into("<Q", memory, at, value & 0xFFFFFFFFFFFFFFFF)
    elif kind == _R_PC64:
        struct.pack_into("<Q", memory, at, (value - place) & 0xFFFFFFFFFFFFFFFF)
    elif kind in (_R_PC32, _R_PLT32, _R_32S, _R_32):
        v = value - place if kind in (_R_PC32, _R_PLT32) else value
        fits = 0 <= v < 1 << 32 if kind == _R_32 else -(1 << 31) <= v < 1 << 31
        if not fits:
            raise Unsupported(f"relocation {kind} out of range")
        struct.pack_into("<I", memory, at, v & 0xFFFFFFFF)
    else:
        raise Unsupported(f"relocation {kind}")


def _anonymous(size: int) -> mmap.mmap:
    """Fresh zeroed, writable pages for `size` bytes (at least one page)."""
    return mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)


def _address(m: mmap.mmap) -> int:
    """The address of a mapping's first byte."""
    view = (ctypes.c_char * 1).from_buffer(m)  # (pins the mapping: it is never closed)
    return ctypes.addressof(view)


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)


def _protect(base: int, size: int, prot: int) -> None:
    """Set the protection of the pages of the `size` bytes from `base`."""
    length = -(-max(size, 1) // _PAGE) * _PAGE
    if _libc.mprotect(base, length, prot) != 0:
        raise Unsupported(f"mprotect failed (errno {ctypes.get_errno()})")


__all__ = ["Loaded", "Unsupported", "load", "sections", "symbols", "undefined"]
