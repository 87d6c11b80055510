//! Pretty JSON with every object's keys sorted, written straight from
//! `Serialize` data: the text `serde_json::to_string_pretty` writes for
//! `serde_json::to_value(x)` (whose maps, without serde_json's
//! `preserve_order` feature, are `BTreeMap`s: keys in byte order, a
//! repeated key keeping its last value), without building the `Value`.
//! `summary.json` went through a `Value` (~1.1 M of a short run's ~5.7 M
//! instructions: a `String` key, a `Value` and B-tree nodes per field, then
//! a second walk to print them; session 21, docs/performance.md).
//!
//! Each object's entries are printed one after the other at the end of
//! the output (at the depth they will sit at) and then copied out in key
//! order behind them, the printed values then removed; arrays and scalars are printed in place. Scalars are printed by serde_json itself (`to_writer`), as
//! `Value` prints them: a float as its `f64` (an `f32` widened first, as
//! `Value::from(f32)` stores it), a non-finite float as `null`. A map
//! key that is not a string, an integer up to 64 bits or a char (which
//! `to_value` refuses or, for bools, floats and 128-bit integers, turns
//! into strings its own way) and a 128-bit integer out of 64-bit range
//! are errors here, and `exec/summary.rs` then falls back to the
//! `Value`.

use serde::ser::{self, Serialize};
use serde_json::Error;

/// `serde_json::to_string_pretty(&serde_json::to_value(value)?)`, without
/// the `Value`.
pub fn to_string_pretty_sorted<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut out = Vec::with_capacity(16 * 1024);
    value.serialize(Ser { out: &mut out, depth: 0 })?;
    // Only valid UTF-8 was written (serde_json's output and ASCII).
    String::from_utf8(out).map_err(ser::Error::custom)
}

fn indent(out: &mut Vec<u8>, depth: usize) {
    out.extend(std::iter::repeat_n(b' ', 2 * depth));
}

fn scalar<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> Result<(), Error> {
    serde_json::to_writer(out, v)
}

/// The serializer: writes one value at `depth` (its first line is already
/// indented; nested lines are indented by `2 * depth` spaces and more).
struct Ser<'a> {
    out: &'a mut Vec<u8>,
    depth: usize,
}

impl<'a> Ser<'a> {
    fn seq(self) -> Seq<'a> {
        self.out.push(b'[');
        Seq { out: self.out, depth: self.depth, first: true }
    }

    fn map(self) -> Map<'a> {
        let start = self.out.len();
        Map { out: self.out, depth: self.depth, start, entries: Vec::new(), key: None }
    }

    /// `{"variant": ` ... `}`: the one-key object `to_value` makes of a
    /// newtype, tuple or struct variant.
    fn open_variant(&mut self, variant: &str) -> Result<(), Error> {
        self.out.push(b'{');
        self.out.push(b'\n');
        indent(self.out, self.depth + 1);
        scalar(self.out, variant)?;
        self.out.extend_from_slice(b": ");
        Ok(())
    }

    fn close_variant(out: &mut Vec<u8>, depth: usize) {
        out.push(b'\n');
        indent(out, depth);
        out.push(b'}');
    }
}

/// An array being written.
struct Seq<'a> {
    out: &'a mut Vec<u8>,
    depth: usize,
    first: bool,
}

impl<'a> Seq<'a> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.out.extend_from_slice(if self.first { b"\n" } else { b",\n" });
        self.first = false;
        indent(self.out, self.depth + 1);
        v.serialize(Ser { out: self.out, depth: self.depth + 1 })
    }

    fn close(self) -> &'a mut Vec<u8> {
        if !self.first {
            self.out.push(b'\n');
            indent(self.out, self.depth);
        }
        self.out.push(b']');
        self.out
    }
}

/// A key: a struct's field name as it is, a map's key made a string.
enum Key {
    Field(&'static str),
    Made(String),
}

impl Key {
    fn as_str(&self) -> &str {
        match self {
            Key::Field(s) => s,
            Key::Made(s) => s,
        }
    }
}

/// An object being collected: its entries' values printed one after the
/// other at the end of the output itself, from `start` on, and (key, where
/// its value is) per entry; `close` appends the object in key order and
/// removes the values (a buffer per object, grown by doubling, cost ~1 M
/// instructions of `summary.json` on the 10-hop chain; session 23). An
/// object inside a value is closed before its entry's range is taken, so
/// the ranges stay valid.
struct Map<'a> {
    out: &'a mut Vec<u8>,
    depth: usize,
    start: usize,
    entries: Vec<(Key, std::ops::Range<usize>)>,
    key: Option<String>,
}

impl<'a> Map<'a> {
    fn entry<T: Serialize + ?Sized>(&mut self, key: Key, v: &T) -> Result<(), Error> {
        let start = self.out.len();
        v.serialize(Ser { out: &mut *self.out, depth: self.depth + 1 })?;
        self.entries.push((key, start..self.out.len()));
        Ok(())
    }

    /// Writes the entries in key order; of equal keys the last (a `BTreeMap`
    /// insert replaces the value).
    fn close(mut self) -> Result<&'a mut Vec<u8>, Error> {
        // Stable: equal keys stay in insertion order, the last one wins.
        self.entries.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        let values = self.start..self.out.len();
        self.out.push(b'{');
        let n = self.entries.len();
        let mut first = true;
        for i in 0..n {
            if i + 1 < n && self.entries[i + 1].0.as_str() == self.entries[i].0.as_str() {
                continue;
            }
            self.out.extend_from_slice(if first { b"\n" } else { b",\n" });
            first = false;
            indent(self.out, self.depth + 1);
            scalar(self.out, self.entries[i].0.as_str())?;
            self.out.extend_from_slice(b": ");
            self.out.extend_from_within(self.entries[i].1.clone());
        }
        if !first {
            self.out.push(b'\n');
            indent(self.out, self.depth);
        }
        self.out.push(b'}');
        self.out.drain(values);
        Ok(self.out)
    }
}

/// An array or object inside a variant's one-key object (`depth`: the
/// object's).
struct Variant<T> {
    inner: T,
    depth: usize,
}

fn key_error() -> Error {
    ser::Error::custom("key must be a string")
}

impl<'a> ser::Serializer for Ser<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Variant<Seq<'a>>;
    type SerializeMap = Map<'a>;
    type SerializeStruct = Map<'a>;
    type SerializeStructVariant = Variant<Map<'a>>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        // `to_value` keeps a 128-bit integer only within 64 bits.
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(x), _) => scalar(self.out, &x),
            (_, Ok(x)) => scalar(self.out, &x),
            _ => Err(ser::Error::custom("number out of range")),
        }
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        match u64::try_from(v) {
            Ok(x) => scalar(self.out, &x),
            Err(_) => Err(ser::Error::custom("number out of range")),
        }
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        // `Value::from(f32)` stores the f32 as an f64 (and NaN/inf as null).
        scalar(self.out, &(v as f64))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        // serde_json prints a non-finite f64 as null, as `Value::from(f64)`.
        scalar(self.out, &v)
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        scalar(self.out, &v)
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        scalar(self.out, v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut s = self.seq();
        for b in v {
            s.element(b)?;
        }
        s.close();
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        scalar(self.out, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.open_variant(variant)?;
        let depth = self.depth;
        v.serialize(Ser { out: self.out, depth: depth + 1 })?;
        Ser::close_variant(self.out, depth);
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Error> {
        Ok(self.seq())
    }
    fn serialize_tuple(self, _: usize) -> Result<Seq<'a>, Error> {
        Ok(self.seq())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Seq<'a>, Error> {
        Ok(self.seq())
    }
    fn serialize_tuple_variant(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Variant<Seq<'a>>, Error> {
        self.open_variant(variant)?;
        let depth = self.depth;
        Ok(Variant { inner: Ser { out: self.out, depth: depth + 1 }.seq(), depth })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map<'a>, Error> {
        Ok(self.map())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Map<'a>, Error> {
        Ok(self.map())
    }
    fn serialize_struct_variant(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Variant<Map<'a>>, Error> {
        self.open_variant(variant)?;
        let depth = self.depth;
        Ok(Variant { inner: Ser { out: self.out, depth: depth + 1 }.map(), depth })
    }
}

/// An array's element (sequences, tuples and tuple structs print alike).
macro_rules! seq_impl {
    ($trait:ident, $method:ident) => {
        impl ser::$trait for Seq<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                self.element(v)
            }
            fn end(self) -> Result<(), Error> {
                self.close();
                Ok(())
            }
        }
    };
}
seq_impl!(SerializeSeq, serialize_element);
seq_impl!(SerializeTuple, serialize_element);
seq_impl!(SerializeTupleStruct, serialize_field);

impl ser::SerializeTupleVariant for Variant<Seq<'_>> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.inner.element(v)
    }
    fn end(self) -> Result<(), Error> {
        let out = self.inner.close();
        Ser::close_variant(out, self.depth);
        Ok(())
    }
}

impl ser::SerializeMap for Map<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(KeySer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| ser::Error::custom("serialize_value called before serialize_key"))?;
        self.entry(Key::Made(key), v)
    }
    fn end(self) -> Result<(), Error> {
        self.close().map(|_| ())
    }
}

impl ser::SerializeStruct for Map<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), Error> {
        self.entry(Key::Field(key), v)
    }
    fn end(self) -> Result<(), Error> {
        self.close().map(|_| ())
    }
}

impl ser::SerializeStructVariant for Variant<Map<'_>> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), Error> {
        self.inner.entry(Key::Field(key), v)
    }
    fn end(self) -> Result<(), Error> {
        let out = self.inner.close()?;
        Ser::close_variant(out, self.depth);
        Ok(())
    }
}

/// A map key as `to_value` makes it: strings and chars as they are,
/// integers in decimal; anything else is refused.
struct KeySer;

impl ser::Serializer for KeySer {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = ser::Impossible<String, Error>;
    type SerializeTuple = ser::Impossible<String, Error>;
    type SerializeTupleStruct = ser::Impossible<String, Error>;
    type SerializeTupleVariant = ser::Impossible<String, Error>;
    type SerializeMap = ser::Impossible<String, Error>;
    type SerializeStruct = ser::Impossible<String, Error>;
    type SerializeStructVariant = ser::Impossible<String, Error>;

    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_char(self, v: char) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i8(self, v: i8) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i16(self, v: i16) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i32(self, v: i32) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i64(self, v: i64) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u16(self, v: u16) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u32(self, v: u32) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u64(self, v: u64) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<String, Error> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<String, Error> {
        v.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_f32(self, _: f32) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_f64(self, _: f64) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_none(self) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_unit(self) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, Error> {
        Err(key_error())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}

#[cfg(test)]
#[path = "sorted_json_tests.rs"]
mod tests;
