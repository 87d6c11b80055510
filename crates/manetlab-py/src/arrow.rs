//! Tables crossing into Python as Arrow: a [`Table`] (named, typed columns
//! with nulls) becomes an Arrow record batch handed over through the Arrow
//! PyCapsule interface (`__arrow_c_stream__`), which pyarrow (`pa.table`),
//! polars (`pl.from_arrow`) and others import without copying.

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, RecordBatchIterator, StringArray, UInt64Array};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::sync::Arc;

/// One column's values.
#[derive(Clone, Debug)]
pub enum Data {
    F64(Vec<Option<f64>>),
    U64(Vec<Option<u64>>),
    I64(Vec<Option<i64>>),
    Str(Vec<Option<String>>),
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::F64(v) => v.len(),
            Data::U64(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::Str(v) => v.len(),
        }
    }
}

/// A named table: columns in order, each with an optional unit (kept as
/// Arrow field metadata `unit`).
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub columns: Vec<(String, Option<String>, Data)>,
}

impl Table {
    pub fn to_batch(&self) -> Result<RecordBatch, ArrowError> {
        let mut fields = Vec::with_capacity(self.columns.len());
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.columns.len());
        for (name, unit, data) in &self.columns {
            let (dt, arr): (DataType, ArrayRef) = match data {
                Data::F64(v) => (DataType::Float64, Arc::new(Float64Array::from(v.clone()))),
                Data::U64(v) => (DataType::UInt64, Arc::new(UInt64Array::from(v.clone()))),
                Data::I64(v) => (DataType::Int64, Arc::new(Int64Array::from(v.clone()))),
                Data::Str(v) => (DataType::Utf8, Arc::new(StringArray::from(v.clone()))),
            };
            let nullable = arr.null_count() > 0 || matches!(data, Data::F64(_));
            let mut f = Field::new(name, dt, nullable);
            if let Some(u) = unit {
                f = f.with_metadata(std::collections::HashMap::from([("unit".to_string(), u.clone())]));
            }
            fields.push(f);
            arrays.push(arr);
        }
        let schema = Arc::new(Schema::new(fields));
        if arrays.is_empty() {
            return Ok(RecordBatch::new_empty(schema));
        }
        RecordBatch::try_new(schema, arrays)
    }
}

/// An Arrow table produced in Rust. Import it with `pyarrow.table(t)` or
/// `polars.from_arrow(t)` (the Arrow PyCapsule interface); it can be
/// imported once or many times (each import gets the same batch).
#[pyclass(module = "manetlab._native", frozen)]
pub struct ArrowTable {
    batch: RecordBatch,
}

impl ArrowTable {
    pub fn new(t: &Table) -> PyResult<ArrowTable> {
        let batch = t.to_batch().map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        Ok(ArrowTable { batch })
    }
}

#[pymethods]
impl ArrowTable {
    /// The Arrow C stream of this table (one record batch), as a PyCapsule
    /// named "arrow_array_stream".
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema; // the schema is fixed; consumers cast if they wish
        let schema = self.batch.schema();
        let reader = RecordBatchIterator::new(vec![Ok(self.batch.clone())], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.batch.schema().fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    fn __repr__(&self) -> String {
        format!("<manetlab ArrowTable: {} rows x {} columns>", self.batch.num_rows(), self.batch.num_columns())
    }
}
