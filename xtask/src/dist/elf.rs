//! The newest glibc symbol version an ELF binary asks for: the highest `GLIBC_x.y` among its
//! version needs (`.gnu.version_r`), which is what the dynamic loader checks at start.

use anyhow::Result;
use object::Endianness;
use object::elf::FileHeader64;
use object::read::elf::FileHeader;

/// `Some((major, minor))` of the newest `GLIBC_` version needed; `None` when the binary needs
/// none (static, or not linked against glibc).
pub fn highest_glibc(data: &[u8]) -> Result<Option<(u32, u32)>> {
    let header = FileHeader64::<Endianness>::parse(data)?;
    let endian = header.endian()?;
    let sections = header.sections(endian, data)?;
    let mut highest = None;
    if let Some((mut needs, link)) = sections.gnu_verneed(endian, data)? {
        let strings = sections.strings(endian, data, link)?;
        while let Some((_, mut versions)) = needs.next()? {
            while let Some(version) = versions.next()? {
                let name = version.name(endian, strings)?;
                if let Some(number) = glibc_version(name) {
                    highest = highest.max(Some(number));
                }
            }
        }
    }
    Ok(highest)
}

/// `(2, 17)` for `GLIBC_2.17`; `None` for other names (`GLIBC_PRIVATE`, `GCC_3.0`).
pub fn glibc_version(name: &[u8]) -> Option<(u32, u32)> {
    let rest = std::str::from_utf8(name).ok()?.strip_prefix("GLIBC_")?;
    let mut parts = rest.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().map_or(Some(0), |minor| minor.parse().ok())?;
    Some((major, minor))
}
