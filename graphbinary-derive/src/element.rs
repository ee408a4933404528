//! `#[derive(Vertex)]` and `#[derive(Edge)]`: a struct as a graph element.
//!
//! The generated impls (`graphbinary_client::element::VertexType` / `EdgeType`) name the client
//! crate `::graphbinary_client`, or the path of `#[vertex(crate = "...")]`, bound once as
//! `__gb` in an anonymous `const` block, and call its `element::__private` helpers (not a
//! stable API, as for `#[derive(GraphBinary)]`).
//!
//! Every attribute mistake is reported in one compilation, each at the span of the offending
//! attribute (or field); with errors, only the errors are emitted.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Expr, ExprLit, Fields, Ident, Lit, Token};

use crate::attr::{reject_value, skip_value};
use crate::errors::Errors;

/// Which derive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Vertex,
    Edge,
}

impl Kind {
    /// The attribute path: `vertex` or `edge`.
    fn attr(self) -> &'static str {
        match self {
            Kind::Vertex => "vertex",
            Kind::Edge => "edge",
        }
    }
    fn derive(self) -> &'static str {
        match self {
            Kind::Vertex => "Vertex",
            Kind::Edge => "Edge",
        }
    }
    fn container_attrs(self) -> &'static [&'static str] {
        &["label", "crate"]
    }
    fn field_attrs(self) -> &'static [&'static str] {
        match self {
            Kind::Vertex => &["id", "key", "skip", "rename"],
            Kind::Edge => &["id", "key", "skip", "rename", "out", "in"],
        }
    }
}

/// What a field is.
#[derive(Clone)]
enum Role {
    Property {
        name: String,
        key: bool,
    },
    Id,
    Skip,
    /// An edge's end: out (`true`) or in, by id or by the key of a vertex type.
    End {
        out: bool,
        by: Option<syn::Path>,
    },
}

struct Field<'a> {
    ident: &'a Ident,
    role: Role,
}

/// The derive's expansion for `input`, or its errors.
pub(crate) fn derive(kind: Kind, input: &DeriveInput) -> TokenStream {
    match expand(kind, input) {
        Ok(t) => t,
        Err(e) => e.into_compile_error(),
    }
}

/// A name inside `#[vertex(...)]` / `#[edge(...)]` and where.
fn each(
    attrs: &[syn::Attribute],
    kind: Kind,
    known: &'static [&'static str],
    errors: &mut Errors,
    mut f: impl FnMut(&'static str, Span, ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) {
    let mut seen: Vec<&'static str> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident(kind.attr())) {
        let r = attr.parse_nested_meta(|meta| {
            let written = meta
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::");
            let span = meta.path.span();
            match known.iter().find(|k| **k == written) {
                Some(name) if seen.contains(name) => {
                    errors.spanned(
                        &meta.path,
                        format!("duplicate {} attribute `{name}`", kind.attr()),
                    );
                    skip_value(&meta)
                }
                Some(name) => {
                    seen.push(name);
                    f(name, span, meta, errors)
                }
                None => {
                    let expected = known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    errors.spanned(
                        &meta.path,
                        format!(
                            "unknown {} attribute `{written}`; expected one of: {expected}",
                            kind.attr()
                        ),
                    );
                    skip_value(&meta)
                }
            }
        });
        errors.ok(r);
    }
}

/// A flag (no value); a value is reported and skipped.
fn flag(meta: &ParseNestedMeta<'_>, name: &str, errors: &mut Errors) -> syn::Result<()> {
    reject_value(meta, errors, || format!("`{name}` takes no value"))
}

/// `name = "non-empty string"`.
fn string(
    meta: &ParseNestedMeta<'_>,
    name: &str,
    errors: &mut Errors,
) -> syn::Result<Option<String>> {
    if !meta.input.peek(Token![=]) {
        errors.spanned(
            &meta.path,
            format!("`{name}` needs a value: `{name} = \"...\"`"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let expr: Expr = meta.value()?.parse()?;
    match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if !s.value().is_empty() => Ok(Some(s.value())),
        _ => {
            errors.spanned(
                &expr,
                format!("`{name}` must be a non-empty string literal"),
            );
            Ok(None)
        }
    }
}

fn expand(kind: Kind, input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::new();
    let ident = &input.ident;
    let derive = kind.derive();
    // The type.
    let mut label: Option<String> = None;
    let mut krate: Option<syn::Path> = None;
    each(
        &input.attrs,
        kind,
        kind.container_attrs(),
        &mut errors,
        |name, _span, meta, errors| {
            match name {
                "label" => label = string(&meta, name, errors)?,
                "crate" => {
                    if let Some(s) = string(&meta, name, errors)? {
                        match syn::parse_str::<syn::Path>(&s) {
                        Ok(p) => krate = Some(p),
                        Err(_) => errors.spanned(&meta.path, "`crate` must be a path, e.g. `crate = \"my_reexport::graphbinary_client\"`"),
                    }
                    }
                }
                _ => unreachable!(),
            }
            Ok(())
        },
    );
    if !input.generics.params.is_empty() {
        errors.spanned(
            &input.generics,
            format!("#[derive({derive})] does not take generic types"),
        );
    }
    let named = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(f) => Some(&f.named),
            _ => None,
        },
        _ => None,
    };
    let Some(named) = named else {
        errors.spanned(
            ident,
            format!("#[derive({derive})] needs a struct with named fields"),
        );
        return errors.finish(TokenStream::new());
    };
    // The fields.
    let mut fields: Vec<Field<'_>> = Vec::new();
    let mut id_at: Option<Span> = None;
    let mut ends: [Option<Span>; 2] = [None, None];
    let mut names: Vec<String> = Vec::new();
    for f in named {
        let fid = f.ident.as_ref().expect("named field");
        let mut role_span: Option<(&'static str, Span)> = None;
        let mut role: Option<Role> = None;
        let mut key = false;
        let mut rename: Option<(String, Span)> = None;
        each(
            &f.attrs,
            kind,
            kind.field_attrs(),
            &mut errors,
            |name, span, meta, errors| {
                match name {
                    "rename" => {
                        if let Some(s) = string(&meta, name, errors)? {
                            rename = Some((s, span));
                        }
                        return Ok(());
                    }
                    "key" => {
                        flag(&meta, name, errors)?;
                        key = true;
                    }
                    "id" | "skip" => flag(&meta, name, errors)?,
                    "out" | "in" => {
                        let by = if meta.input.peek(Token![=]) {
                            let expr: Expr = meta.value()?.parse()?;
                            match expr {
                                Expr::Path(p) if p.qself.is_none() => Some(p.path),
                                other => {
                                    errors.spanned(&other, format!("`{name} = ...` names the vertex type whose key finds the end, e.g. `{name} = Person`"));
                                    None
                                }
                            }
                        } else {
                            flag(&meta, name, errors)?;
                            None
                        };
                        let i = usize::from(name == "in");
                        match ends[i] {
                            Some(_) => errors.spanned(
                                &meta.path,
                                format!(
                                    "a second `{name}` end: an edge has one out and one in end"
                                ),
                            ),
                            None => ends[i] = Some(span),
                        }
                        let r = Role::End {
                            out: name == "out",
                            by,
                        };
                        if let Some((other, _)) = role_span {
                            errors.spanned(
                                &meta.path,
                                format!("`{name}` cannot be combined with `{other}`"),
                            );
                        } else {
                            role_span = Some((name, span));
                            role = Some(r);
                        }
                        return Ok(());
                    }
                    _ => unreachable!(),
                }
                if name == "key" {
                    if let Some((other, _)) = role_span {
                        errors.spanned(
                            &meta.path,
                            format!("`key` cannot be combined with `{other}`"),
                        );
                    }
                    return Ok(());
                }
                if let Some((other, _)) = role_span {
                    errors.spanned(
                        &meta.path,
                        format!("`{name}` cannot be combined with `{other}`"),
                    );
                    return Ok(());
                }
                if key {
                    errors.spanned(
                        &meta.path,
                        format!("`{name}` cannot be combined with `key`"),
                    );
                    return Ok(());
                }
                role_span = Some((name, span));
                role = Some(if name == "id" { Role::Id } else { Role::Skip });
                if name == "id" {
                    if id_at.is_some() {
                        errors.spanned(&meta.path, "a second `id` field: an element has one id");
                    } else {
                        id_at = Some(span);
                    }
                }
                Ok(())
            },
        );
        let role = match role {
            Some(r) => {
                if let Some((_, span)) = &rename {
                    errors.push(syn::Error::new(
                        *span,
                        "`rename` names a property; it cannot be used on an id, skipped or end field",
                    ));
                }
                r
            }
            None => {
                let (name, span) = match rename {
                    Some((n, s)) => (n, s),
                    None => (crate::ast::unraw(fid), fid.span()),
                };
                if names.contains(&name) {
                    errors.push(syn::Error::new(
                        span,
                        format!("two fields are the property {name:?}"),
                    ));
                }
                names.push(name.clone());
                Role::Property { name, key }
            }
        };
        fields.push(Field { ident: fid, role });
    }
    if kind == Kind::Edge {
        for (i, which) in ["out", "in"].iter().enumerate() {
            if ends[i].is_none() {
                errors.spanned(
                    ident,
                    format!("#[derive(Edge)] needs an `#[edge({which})]` field: the {which} vertex's id, or its key with `#[edge({which} = VertexType)]`"),
                );
            }
        }
    }
    errors.finish(())?;
    let label = label.unwrap_or_else(|| crate::ast::unraw(ident));
    Ok(generate(kind, input, &label, krate.as_ref(), &fields))
}

fn generate(
    kind: Kind,
    input: &DeriveInput,
    label: &str,
    krate: Option<&syn::Path>,
    fields: &[Field<'_>],
) -> TokenStream {
    let ident = &input.ident;
    let target = ident.to_string();
    let p = quote!(__gb::element::__private);
    let keys: Vec<&str> = fields
        .iter()
        .filter_map(|f| match &f.role {
            Role::Property { name, key: true } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    let mut id_write = quote!(::core::option::Option::None);
    let mut props = Vec::new();
    let mut reads = Vec::new();
    // The fast reader's: the same reads, each property from its slot.
    let mut fast_reads = Vec::new();
    let mut slots: Vec<&str> = Vec::new();
    let mut end_writes = [
        quote!(::core::option::Option::None),
        quote!(::core::option::Option::None),
    ];
    let mut ends_by_key = [
        quote!(::core::option::Option::None),
        quote!(::core::option::Option::None),
    ];
    let mut end_checks = Vec::new();
    for f in fields {
        let fid = f.ident;
        match &f.role {
            Role::Property { name, key } => {
                props.push(quote!(#p::write(__T, #name, #key, &self.#fid)?));
                reads.push(quote!(#fid: #p::property(__T, &mut data, #name)?));
                let i = slots.len();
                slots.push(name);
                fast_reads.push(quote!(#fid: #p::fast_property(__T, &mut fast, #i, #name)?));
            }
            Role::Id => {
                id_write = quote!(#p::write_id(__T, &self.#fid)?);
                reads.push(quote!(#fid: #p::id(__T, &data)?));
                fast_reads.push(quote!(#fid: #p::fast_id(__T, &mut fast)?));
            }
            Role::Skip => {
                reads.push(quote!(#fid: ::core::default::Default::default()));
                fast_reads.push(quote!(#fid: ::core::default::Default::default()));
            }
            Role::End { out, by } => {
                let i = usize::from(!*out);
                let which = if *out { "out" } else { "in" };
                if let Some(by) = by {
                    ends_by_key[i] = quote_spanned! {by.span()=>
                        ::core::option::Option::Some((
                            <#by as __gb::element::Element>::LABEL,
                            #p::single_key::<#by>(),
                        ))
                    };
                    end_checks.push(quote_spanned! {by.span()=>
                        const _: &str = #p::single_key::<#by>();
                    });
                }
                end_writes[i] = quote! {
                    ::core::option::Option::Some(#p::write_end(
                        __T, #which, <Self as __gb::element::Element>::ENDS_BY_KEY[#i], &self.#fid,
                    )?)
                };
                reads.push(quote! {
                    #fid: #p::end(
                        __T, &mut data, #out,
                        <Self as __gb::element::Element>::ENDS_BY_KEY[#i].map(|(_, k)| k),
                    )?
                });
                fast_reads.push(quote! {
                    #fid: #p::end(
                        __T, &mut fast.data, #out,
                        <Self as __gb::element::Element>::ENDS_BY_KEY[#i].map(|(_, k)| k),
                    )?
                });
            }
        }
    }
    let use_crate = match krate {
        Some(path) => quote!(use #path as __gb;),
        None => quote!(
            use ::graphbinary_client as __gb;
        ),
    };
    let is_edge = kind == Kind::Edge;
    let ends_const = if is_edge {
        let [o, i] = &ends_by_key;
        quote! {
            const ENDS_BY_KEY: [::core::option::Option<(&'static str, &'static str)>; 2] = [#o, #i];
        }
    } else {
        TokenStream::new()
    };
    let kind_impl = match kind {
        Kind::Vertex => quote! {
            #[automatically_derived]
            impl __gb::element::VertexType for #ident {}
        },
        Kind::Edge => {
            quote! {
                #[automatically_derived]
                impl __gb::element::EdgeType for #ident {}
            }
        }
    };
    let [out_w, in_w] = &end_writes;
    quote! {
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            #use_crate
            #(#end_checks)*
            #[automatically_derived]
            impl __gb::element::Element for #ident {
                const LABEL: &'static str = #label;
                const KEYS: &'static [&'static str] = &[#(#keys),*];
                const IS_EDGE: bool = #is_edge;
                #ends_const
                fn to_write(&self) -> ::core::result::Result<__gb::element::ElementWrite, __gb::Error> {
                    const __T: &str = #target;
                    ::core::result::Result::Ok(__gb::element::ElementWrite {
                        label: #label,
                        id: #id_write,
                        props: ::std::vec![#(#props),*],
                        out_v: #out_w,
                        in_v: #in_w,
                    })
                }
                fn from_data(
                    mut data: __gb::element::ElementData,
                ) -> ::core::result::Result<Self, __gb::Error> {
                    const __T: &str = #target;
                    #p::check_label(__T, &data, #label)?;
                    let _ = &mut data;
                    ::core::result::Result::Ok(#ident {
                        #(#reads),*
                    })
                }
                const __FAST: bool = true;
                const __PROPS: &'static [&'static str] = &[#(#slots),*];
                fn __from_fast(
                    mut fast: #p::Fast,
                ) -> ::core::result::Result<Self, __gb::Error> {
                    const __T: &str = #target;
                    #p::check_label(__T, &fast.data, #label)?;
                    let _ = &mut fast;
                    ::core::result::Result::Ok(#ident {
                        #(#fast_reads),*
                    })
                }
            }
            #kind_impl
        };
    }
}
