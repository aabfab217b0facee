/* Low-IDF-Sig features of a whole document in C: the fast path of
 * detection.vocabulary.document_features (the numpy implementation there is the fallback and
 * the reference; tests/detection/test_native_features.py checks both give the same output).
 * Built by setuptools (setup.py: links libb2 for BLAKE2b).
 *
 *   Table(): a vocabulary's word -> id (the native path keeps no Python dict):
 *       lookup(words, out)  out[i] = the id of words[i] or -1 (out: writable int64 buffer
 *                           of len(words)); returns how many were not found.  Python adds
 *                           those (add_new, under the vocabulary lock), and only then reads
 *                           the hash and flag arrays, so every id found has its hash there.
 *       add_new(words, ids, first, hashes, flags, key, skip, antecedents)
 *                           for every i with ids[i] < 0: ids[i] = the id of words[i]; a
 *                           word the table does not have yet gets the next id (first,
 *                           first + 1, ...), its keyed hash written to hashes[id] and its
 *                           flags to flags[id] before it enters the table.  Returns how many
 *                           words it added.
 *       add(words, first)   words[i] gets id first + i (tests).
 *
 *   word_hash(word, key) -> int
 *       detection.features._word_hash: keyed BLAKE2b (RFC 7693) of the word's UTF-8 bytes,
 *       8-byte digest read big-endian (add_new computes the same).
 *
 *   features(ids, bounds, hashes, flags, multipliers, chain_length, han_chain_length,
 *            chain_gap) -> list[tuple[int, ...]]
 *       For every (first, last) of bounds, the sorted unique features of the sentence
 *       words[first:last] (ids: int64 buffer of word ids; hashes: uint64 buffer, flags: uint8
 *       buffer, both indexed by id).  Skip words are left out (a sentence of skip words only
 *       keeps its first word); chains start at the first kept word and at every kept
 *       antecedent and take the kept words p, p+d, ..., p+c*d (c = han_chain_length when the
 *       start word is Han), cut at the sentence end; a chain is kept when it has two words
 *       or starts the sentence.  Its value is sum(hash[k] * multipliers[k]) mod 2^64, read
 *       as a signed 64-bit integer.  The GIL is released while the values are computed.
 *
 *   han_runs(pieces) -> str
 *       For the (run, other) pairs of detection.words._SPLIT_PIECE.findall: every non-empty
 *       run followed by a space ("" when there is none), what rjieba cuts.
 *   han_words(pieces, tokens) -> (words, bounds, kept)
 *       The loop of detection.words._han_sentence_words (_han_words_py there is the fallback
 *       and the reference; tests/detection/test_native_words.py checks both agree): each run
 *       takes the tokens up to the next " " token, another piece is a word, except the
 *       sentence separator "\0" which closes a span.  The words are the very str objects of
 *       tokens and pieces.
 *   ascii_words(text, spans) -> (words, bounds, kept) | None | NotImplemented
 *       detection.words._latin_sentence_words of ASCII text (the Python version is the
 *       fallback and the reference, same test file): _ASCII_PIECE's matches scanned by hand,
 *       span by span, following a word that runs on past a span's end; None when a word
 *       might start before a span (the whole-text cut decides), NotImplemented for a span
 *       outside the text (the Python version decides).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <blake2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FLAG_SKIP 1
#define FLAG_ANTECEDENT 2
#define FLAG_HAN 4

/* The buffer's format, without a byte-order/size prefix ("<q", "=q", "@l" -> 'q', 'l'). */
static char
format_code(const Py_buffer *view)
{
    const char *format = view->format ? view->format : "B";
    if (*format == '@' || *format == '=' || *format == '<' || *format == '>' || *format == '!') {
        format++;
    }
    return format[0] != '\0' && format[1] == '\0' ? format[0] : '\0';
}

/* A C-contiguous one-dimensional buffer of items of `itemsize` bytes whose format is one of
 * `codes`; on failure an exception is set and the buffer is not held. */
static int
get_buffer(PyObject *object, Py_buffer *view, int writable, Py_ssize_t itemsize,
           const char *codes, const char *name)
{
    int flags = PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0) {
        return -1;
    }
    char code = format_code(view);
    if (view->ndim != 1 || view->itemsize != itemsize || code == '\0' ||
        strchr(codes, code) == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a one-dimensional buffer of %zd-byte items "
                     "of format %s, got format %s", name, itemsize, codes,
                     view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Keyed BLAKE2b (RFC 7693) with an 8-byte digest, by libb2: detection.features._word_hash,
 * i.e. hashlib.blake2b(word.encode(), digest_size=8, key=key) read as a big-endian integer.
 * The state after the key is made once per call (Keyed) and copied per word, as a copied
 * hashlib hasher would be; tests/detection/test_native_features.py checks it against hashlib. */

#define DIGEST_BYTES 8

typedef struct {
    blake2b_state state; /* after the key (or the parameter block alone, without a key) */
} Keyed;

/* key: 0 to 64 bytes (hashlib's limits); sets an exception on a longer one. */
static int
keyed_init(Keyed *keyed, PyObject *key_object)
{
    if (!PyBytes_Check(key_object)) {
        PyErr_Format(PyExc_TypeError, "key must be bytes, got %.100s",
                     Py_TYPE(key_object)->tp_name);
        return -1;
    }
    Py_ssize_t length = PyBytes_GET_SIZE(key_object);
    if (length > BLAKE2B_KEYBYTES) {
        PyErr_SetString(PyExc_ValueError, "key must be at most 64 bytes");
        return -1;
    }
    /* libb2 refuses an empty key: hashlib's empty key is no key. */
    int failed = length > 0 ? blake2b_init_key(&keyed->state, DIGEST_BYTES,
                                               PyBytes_AS_STRING(key_object), (size_t)length)
                            : blake2b_init(&keyed->state, DIGEST_BYTES);
    if (failed) {
        PyErr_SetString(PyExc_RuntimeError, "libb2: blake2b initialisation failed");
        return -1;
    }
    return 0;
}

static uint64_t
keyed_hash(const Keyed *keyed, const uint8_t *data, size_t length)
{
    blake2b_state state = keyed->state;
    uint8_t digest[DIGEST_BYTES];
    /* Neither fails with a valid state and a digest of the state's length. */
    (void)blake2b_update(&state, data, length);
    (void)blake2b_final(&state, digest, DIGEST_BYTES);
    uint64_t value = 0;
    for (int i = 0; i < DIGEST_BYTES; i++) {
        value = value << 8 | digest[i]; /* int.from_bytes(digest, "big") */
    }
    return value;
}

/* The UTF-8 bytes of a str (cached in the object by CPython; ASCII words are their data). */
static int
word_hash_of(const Keyed *keyed, PyObject *word, uint64_t *hash)
{
    Py_ssize_t length;
    const char *data = PyUnicode_AsUTF8AndSize(word, &length);
    if (data == NULL) {
        return -1; /* lone surrogates: UnicodeEncodeError, as str.encode("utf-8") */
    }
    *hash = keyed_hash(keyed, (const uint8_t *)data, (size_t)length);
    return 0;
}

static PyObject *
word_hash(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "word_hash(word, key) takes 2 arguments");
        return NULL;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "word must be str, got %.100s",
                     Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    Keyed keyed;
    uint64_t hash;
    if (keyed_init(&keyed, args[1]) < 0 || word_hash_of(&keyed, args[0], &hash) < 0) {
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(hash);
}

/* Table: the vocabulary's word -> id, for lookups (and adds, add_new) of whole word lists.
 *
 * The dict costs three to four cache misses per word on a large vocabulary (index, entry, the
 * key string, the id int); here a word is found in one 32-byte slot holding its str hash,
 * its id and, for words of up to 16 bytes (almost all), the characters themselves.  Linear
 * probing, at most half full.  A word is its str kind (1, 2 or 4 bytes a character) and
 * data: CPython stores equal strings with the same kind, so equal words have equal bytes.
 *
 * Every method holds the GIL from start to end and runs no Python code (str hashes, UTF-8
 * encoding and the membership tests of str in the model's frozensets of str are C code), so a
 * lookup never sees an add half done; the Python side serialises adds under its vocabulary
 * lock.  add_new writes a word's hash and flags before the word enters the table: a thread
 * that is given its id reads them (without the GIL, in features) only afterwards.
 */

#define INLINE 16

typedef struct {
    Py_hash_t hash;
    int32_t id1;       /* id + 1; 0: empty slot */
    uint32_t shape;    /* bytes << 3 | kind */
    union {
        char bytes[INLINE];
        char *heap;    /* longer words: a copy of their bytes */
    } key;
} Slot;

typedef struct {
    PyObject_HEAD
    Slot *slots;
    size_t mask;       /* slots - 1, a power of two minus one */
    Py_ssize_t used;
} Table;

static int
shape_of(PyObject *word, const char **data, uint32_t *shape, Py_hash_t *hash)
{
    if (!PyUnicode_CheckExact(word)) {
        /* Other keys may run Python code (__hash__, __eq__) or hash differently. */
        PyErr_Format(PyExc_TypeError, "words must be str, got %.100s", Py_TYPE(word)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(word) < 0) { /* legacy (wstr) strings: give them their kind */
        return -1;
    }
#endif
    size_t bytes = (size_t)PyUnicode_GET_LENGTH(word) * PyUnicode_KIND(word);
    if (bytes >= (1u << 29)) {
        PyErr_SetString(PyExc_ValueError, "word too long");
        return -1;
    }
    *data = PyUnicode_DATA(word);
    *shape = (uint32_t)(bytes << 3) | (uint32_t)PyUnicode_KIND(word);
    *hash = PyObject_Hash(word); /* str: computed once, then cached in the object */
    return *hash == -1 ? -1 : 0;
}

static inline const char *
slot_bytes(const Slot *slot)
{
    return (slot->shape >> 3) <= INLINE ? slot->key.bytes : slot->key.heap;
}

/* The slot of the word, or the empty slot where it would go. */
static inline Slot *
find(const Table *table, const char *data, uint32_t shape, Py_hash_t hash)
{
    size_t index = (size_t)hash & table->mask;
    for (;;) {
        Slot *slot = &table->slots[index];
        if (slot->id1 == 0 || (slot->hash == hash && slot->shape == shape &&
                               memcmp(slot_bytes(slot), data, shape >> 3) == 0)) {
            return slot;
        }
        index = (index + 1) & table->mask;
    }
}

static int
table_grow(Table *table)
{
    size_t size = 2 * (table->mask + 1);
    Slot *slots = calloc(size, sizeof(Slot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Slot *old = table->slots;
    size_t old_size = table->mask + 1;
    table->slots = slots;
    table->mask = size - 1;
    for (size_t i = 0; i < old_size; i++) {
        if (old[i].id1 != 0) {
            size_t index = (size_t)old[i].hash & table->mask;
            while (slots[index].id1 != 0) {
                index = (index + 1) & table->mask;
            }
            slots[index] = old[i];
        }
    }
    free(old);
    return 0;
}

static PyObject *
table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "Table() takes no arguments");
        return NULL;
    }
    Table *table = (Table *)type->tp_alloc(type, 0);
    if (table == NULL) {
        return NULL;
    }
    table->slots = calloc(1024, sizeof(Slot));
    if (table->slots == NULL) {
        Py_DECREF(table);
        return PyErr_NoMemory();
    }
    table->mask = 1023;
    return (PyObject *)table;
}

static void
table_dealloc(Table *table)
{
    if (table->slots != NULL) {
        for (size_t i = 0; i <= table->mask; i++) {
            if (table->slots[i].id1 != 0 && (table->slots[i].shape >> 3) > INLINE) {
                PyMem_Free(table->slots[i].key.heap);
            }
        }
        free(table->slots);
    }
    Py_TYPE(table)->tp_free((PyObject *)table);
}

static Py_ssize_t
table_length(Table *table)
{
    return table->used;
}

/* An empty slot takes the word's key (its id is set by the caller, last). */
static int
slot_fill(Table *table, Slot *slot, const char *data, uint32_t shape, Py_hash_t hash)
{
    size_t bytes = shape >> 3;
    if (bytes > INLINE) {
        slot->key.heap = PyMem_Malloc(bytes);
        if (slot->key.heap == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(slot->key.heap, data, bytes);
    }
    else {
        memcpy(slot->key.bytes, data, bytes);
    }
    slot->hash = hash;
    slot->shape = shape;
    table->used++;
    return 0;
}

static PyObject *
table_add(Table *table, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "add(words, first) takes 2 arguments");
        return NULL;
    }
    Py_ssize_t first = PyLong_AsSsize_t(args[1]);
    if (first == -1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *words = PySequence_Fast(args[0], "add: words must be a sequence");
    if (words == NULL) {
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(words);
    if (first < 0 || first > INT32_MAX - 1 - count) {
        PyErr_SetString(PyExc_OverflowError, "add: ids must lie in 0 .. 2**31 - 2");
        goto error;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const char *data;
        uint32_t shape;
        Py_hash_t hash;
        if (shape_of(PySequence_Fast_ITEMS(words)[i], &data, &shape, &hash) < 0) {
            goto error;
        }
        if ((size_t)(table->used + 1) * 2 > table->mask + 1 && table_grow(table) < 0) {
            goto error;
        }
        Slot *slot = find(table, data, shape, hash);
        if (slot->id1 == 0) { /* else: the word is there already and gets the new id */
            if (slot_fill(table, slot, data, shape, hash) < 0) {
                goto error;
            }
        }
        slot->id1 = (int32_t)(first + i + 1);
    }
    Py_DECREF(words);
    Py_RETURN_NONE;

error:
    Py_DECREF(words);
    return NULL;
}

static PyObject *
table_lookup(Table *table, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "lookup(words, out) takes 2 arguments");
        return NULL;
    }
    PyObject *words = PySequence_Fast(args[0], "lookup: words must be a sequence");
    if (words == NULL) {
        return NULL;
    }
    Py_buffer out;
    if (get_buffer(args[1], &out, 1, 8, "ql", "lookup: out") < 0) {
        Py_DECREF(words);
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(words);
    PyObject **items = PySequence_Fast_ITEMS(words);
    int64_t *result = (int64_t *)out.buf;
    Py_ssize_t missing = 0;
    if (out.len != count * 8) {
        PyErr_SetString(PyExc_ValueError, "lookup: out must have one item per word");
        goto error;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
#if defined(__GNUC__)
        if (i + 8 < count) { /* the words of a long list are rarely all in cache */
            __builtin_prefetch(items[i + 8]);
        }
#endif
        const char *data;
        uint32_t shape;
        Py_hash_t hash;
        if (shape_of(items[i], &data, &shape, &hash) < 0) {
            goto error;
        }
        result[i] = (int64_t)find(table, data, shape, hash)->id1 - 1;
        missing += result[i] < 0;
    }
    PyBuffer_Release(&out);
    Py_DECREF(words);
    return PyLong_FromSsize_t(missing);

error:
    PyBuffer_Release(&out);
    Py_DECREF(words);
    return NULL;
}

/* Flags of a new word: as detection.vocabulary._Vocabulary._flags (and _is_han) give them. */
static int
word_flags(PyObject *word, PyObject *skip, PyObject *antecedents, uint8_t *flags)
{
    int in_skip = PySet_Contains(skip, word);
    if (in_skip < 0) {
        return -1;
    }
    int in_antecedents = PySet_Contains(antecedents, word);
    if (in_antecedents < 0) {
        return -1;
    }
    int han = 0;
    if (PyUnicode_GET_LENGTH(word) > 0) {
        Py_UCS4 first = PyUnicode_READ_CHAR(word, 0);
        han = (first >= 0x3400 && first <= 0x9fff) || (first >= 0xf900 && first <= 0xfaff);
    }
    *flags = (uint8_t)((in_skip ? FLAG_SKIP : 0) | (in_antecedents ? FLAG_ANTECEDENT : 0) |
                       (han ? FLAG_HAN : 0));
    return 0;
}

static PyObject *
table_add_new(Table *table, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "add_new(words, ids, first, hashes, flags, key, skip, "
                        "antecedents) takes 8 arguments");
        return NULL;
    }
    Py_ssize_t first = PyLong_AsSsize_t(args[2]);
    if (first == -1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *skip = args[6], *antecedents = args[7];
    if (!PyAnySet_Check(skip) || !PyAnySet_Check(antecedents)) {
        PyErr_SetString(PyExc_TypeError, "add_new: skip and antecedents must be sets");
        return NULL;
    }
    Keyed keyed;
    if (keyed_init(&keyed, args[5]) < 0) {
        return NULL;
    }
    PyObject *words = PySequence_Fast(args[0], "add_new: words must be a sequence");
    if (words == NULL) {
        return NULL;
    }
    Py_buffer ids_view, hashes_view, flags_view;
    int have_ids = 0, have_hashes = 0, have_flags = 0;
    Py_ssize_t added = 0;
    PyObject *result = NULL;
    if (get_buffer(args[1], &ids_view, 1, 8, "ql", "add_new: ids") < 0) goto done;
    have_ids = 1;
    if (get_buffer(args[3], &hashes_view, 1, 8, "QL", "add_new: hashes") < 0) goto done;
    have_hashes = 1;
    if (get_buffer(args[4], &flags_view, 1, 1, "B", "add_new: flags") < 0) goto done;
    have_flags = 1;

    Py_ssize_t count = PySequence_Fast_GET_SIZE(words);
    PyObject **items = PySequence_Fast_ITEMS(words);
    int64_t *ids = (int64_t *)ids_view.buf;
    uint64_t *hashes = (uint64_t *)hashes_view.buf;
    uint8_t *flags = (uint8_t *)flags_view.buf;
    Py_ssize_t room = hashes_view.len / 8 < flags_view.len ? hashes_view.len / 8 : flags_view.len;
    if (ids_view.len != count * 8) {
        PyErr_SetString(PyExc_ValueError, "add_new: ids must have one item per word");
        goto done;
    }
    /* Every id it may give must fit, in the arrays and in a slot: checked before any add. */
    Py_ssize_t wanted = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        wanted += ids[i] < 0;
    }
    if (first < 0 || first > INT32_MAX - 1 - wanted) {
        PyErr_SetString(PyExc_OverflowError, "add_new: ids must lie in 0 .. 2**31 - 2");
        goto done;
    }
    if (first + wanted > room) {
        PyErr_Format(PyExc_ValueError, "add_new: hashes and flags need room for %zd ids, "
                     "have %zd", first + wanted, room);
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (ids[i] >= 0) {
            continue;
        }
        PyObject *word = items[i];
        const char *data;
        uint32_t shape;
        Py_hash_t hash;
        if (shape_of(word, &data, &shape, &hash) < 0) {
            goto done;
        }
        if ((size_t)(table->used + 1) * 2 > table->mask + 1 && table_grow(table) < 0) {
            goto done;
        }
        Slot *slot = find(table, data, shape, hash);
        if (slot->id1 == 0) {
            Py_ssize_t id = first + added;
            /* Hash and flags first, then the slot: the word is findable only complete. */
            if (word_hash_of(&keyed, word, &hashes[id]) < 0 ||
                word_flags(word, skip, antecedents, &flags[id]) < 0 ||
                slot_fill(table, slot, data, shape, hash) < 0) {
                goto done;
            }
            slot->id1 = (int32_t)(id + 1);
            added++;
        }
        ids[i] = (int64_t)slot->id1 - 1;
    }
    result = PyLong_FromSsize_t(added);

done:
    if (have_flags) PyBuffer_Release(&flags_view);
    if (have_hashes) PyBuffer_Release(&hashes_view);
    if (have_ids) PyBuffer_Release(&ids_view);
    Py_DECREF(words);
    return result;
}

static PyMethodDef table_methods[] = {
    {"add", (PyCFunction)(void (*)(void))table_add, METH_FASTCALL,
     "add(words, first): words[i] (str) gets id first + i."},
    {"add_new", (PyCFunction)(void (*)(void))table_add_new, METH_FASTCALL,
     "add_new(words, ids, first, hashes, flags, key, skip, antecedents) -> int: for every i "
     "with ids[i] < 0, ids[i] = the id of words[i]; a word not in the table gets the next id "
     "(first, first + 1, ...) after its keyed blake2b hash and its flags are written to "
     "hashes[id] and flags[id]; returns how many words were added."},
    {"lookup", (PyCFunction)(void (*)(void))table_lookup, METH_FASTCALL,
     "lookup(words, out) -> int: out[i] = the id of words[i], -1 for a word not added; "
     "returns how many were not found (out: writable int64 buffer of len(words))."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods table_as_sequence = {
    .sq_length = (lenfunc)table_length,
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "detection._lisfeatures.Table",
    .tp_doc = "word (str) -> id, for lookups of whole word lists (see detection/vocabulary.py)",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = table_new,
    .tp_dealloc = (destructor)table_dealloc,
    .tp_methods = table_methods,
    .tp_as_sequence = &table_as_sequence,
};

static int
compare_values(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void
sort_values(int64_t *values, Py_ssize_t count)
{
    /* Sentences give a handful of chains: insertion sort beats qsort's calls there. */
    if (count > 32) {
        qsort(values, (size_t)count, sizeof(int64_t), compare_values);
        return;
    }
    for (Py_ssize_t i = 1; i < count; i++) {
        int64_t value = values[i];
        Py_ssize_t j = i;
        while (j > 0 && values[j - 1] > value) {
            values[j] = values[j - 1];
            j--;
        }
        values[j] = value;
    }
}

typedef struct {
    const int64_t *ids;
    const uint64_t *hashes;
    const uint8_t *flags;
    const uint64_t *multipliers;
    const Py_ssize_t *bounds; /* first, last of each sentence */
    Py_ssize_t sentences;
    Py_ssize_t plain, han, gap;
    uint64_t *kept_hashes;  /* scratch: the kept words of one sentence */
    uint8_t *kept_flags;
    int64_t *values;        /* out: the features of every sentence, one after the other */
    Py_ssize_t *counts;     /* out: how many of them each sentence has */
} Work;

/* The features of every sentence (no Python object is touched: runs without the GIL). */
static void
compute(Work *w)
{
    int64_t *values = w->values;
    for (Py_ssize_t s = 0; s < w->sentences; s++) {
        Py_ssize_t first = w->bounds[2 * s], last = w->bounds[2 * s + 1];
        Py_ssize_t kept = 0;
        for (Py_ssize_t i = first; i < last; i++) {
            int64_t id = w->ids[i];
            uint8_t flag = w->flags[id];
            if (!(flag & FLAG_SKIP)) {
                w->kept_hashes[kept] = w->hashes[id];
                w->kept_flags[kept] = flag;
                kept++;
            }
        }
        if (kept == 0 && last > first) { /* skip words only: the first one stays */
            int64_t id = w->ids[first];
            w->kept_hashes[0] = w->hashes[id];
            w->kept_flags[0] = w->flags[id];
            kept = 1;
        }
        Py_ssize_t count = 0;
        for (Py_ssize_t p = 0; p < kept; p++) {
            if (p > 0 && !(w->kept_flags[p] & FLAG_ANTECEDENT)) {
                continue;
            }
            Py_ssize_t length = (w->kept_flags[p] & FLAG_HAN) ? w->han : w->plain;
            uint64_t value = w->kept_hashes[p] * w->multipliers[0];
            Py_ssize_t k = 1, q = p + w->gap;
            for (; k <= length && q < kept; k++, q += w->gap) {
                value += w->kept_hashes[q] * w->multipliers[k];
            }
            if (k > 1 || p == 0) {
                values[count++] = (int64_t)value; /* two's complement: mod 2^64 as signed */
            }
        }
        sort_values(values, count);
        Py_ssize_t unique = 0;
        for (Py_ssize_t i = 0; i < count; i++) {
            if (unique == 0 || values[i] != values[unique - 1]) {
                values[unique++] = values[i];
            }
        }
        w->counts[s] = unique;
        values += unique;
    }
}

static Py_ssize_t
as_size(PyObject *object, const char *name)
{
    Py_ssize_t value = PyLong_AsSsize_t(object);
    if (value == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (value < 0) {
        PyErr_Format(PyExc_ValueError, "features: %s must be >= 0", name);
        return -1;
    }
    return value;
}

/* first and last of one (first, last) item of bounds (any pair of integers). */
static int
bound_pair(PyObject *pair, Py_ssize_t *first, Py_ssize_t *last)
{
    PyObject *items = PyTuple_CheckExact(pair) ? Py_NewRef(pair) : PySequence_Tuple(pair);
    if (items == NULL) {
        return -1;
    }
    int result = -1;
    if (PyTuple_GET_SIZE(items) != 2) {
        PyErr_SetString(PyExc_ValueError, "features: bounds must hold (first, last) pairs");
    }
    else if ((*first = PyNumber_AsSsize_t(PyTuple_GET_ITEM(items, 0), PyExc_OverflowError)) ==
                 -1 && PyErr_Occurred()) {
    }
    else if ((*last = PyNumber_AsSsize_t(PyTuple_GET_ITEM(items, 1), PyExc_OverflowError)) ==
                 -1 && PyErr_Occurred()) {
    }
    else {
        result = 0;
    }
    Py_DECREF(items);
    return result;
}

static PyObject *
features(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError,
                        "features(ids, bounds, hashes, flags, multipliers, chain_length, "
                        "han_chain_length, chain_gap) takes 8 arguments");
        return NULL;
    }
    Work w;
    memset(&w, 0, sizeof w);
    Py_buffer ids_view, hashes_view, flags_view;
    PyObject *bounds = NULL, *result = NULL;
    Py_ssize_t *table = NULL;
    uint64_t *multipliers = NULL;
    int have_ids = 0, have_hashes = 0, have_flags = 0;

    w.plain = as_size(args[5], "chain_length");
    if (w.plain < 0) goto done;
    w.han = as_size(args[6], "han_chain_length");
    if (w.han < 0) goto done;
    w.gap = as_size(args[7], "chain_gap");
    if (w.gap < 0) goto done;
    if (w.gap == 0) {
        PyErr_SetString(PyExc_ValueError, "features: chain_gap must be >= 1");
        goto done;
    }
    if (w.gap > PY_SSIZE_T_MAX / 4) { /* as good as infinite; p + k * gap cannot overflow */
        w.gap = PY_SSIZE_T_MAX / 4;
    }
    Py_ssize_t longest = w.plain > w.han ? w.plain : w.han;

    if (get_buffer(args[0], &ids_view, 0, 8, "ql", "features: ids") < 0) goto done;
    have_ids = 1;
    if (get_buffer(args[2], &hashes_view, 0, 8, "QL", "features: hashes") < 0) goto done;
    have_hashes = 1;
    if (get_buffer(args[3], &flags_view, 0, 1, "B", "features: flags") < 0) goto done;
    have_flags = 1;
    Py_ssize_t words = ids_view.len / 8;
    Py_ssize_t known = hashes_view.len / 8;
    if (flags_view.len < known) {
        known = flags_view.len;
    }

    PyObject *given = PySequence_Fast(args[4], "features: multipliers must be a sequence");
    if (given == NULL) goto done;
    if (PySequence_Fast_GET_SIZE(given) <= longest) {
        Py_DECREF(given);
        PyErr_SetString(PyExc_ValueError,
                        "features: needs max(chain_length, han_chain_length) + 1 multipliers");
        goto done;
    }
    multipliers = PyMem_Malloc((size_t)(longest + 1) * sizeof(uint64_t));
    if (multipliers == NULL) {
        Py_DECREF(given);
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k <= longest; k++) {
        multipliers[k] = PyLong_AsUnsignedLongLong(PySequence_Fast_ITEMS(given)[k]);
        if (multipliers[k] == (uint64_t)-1 && PyErr_Occurred()) {
            Py_DECREF(given);
            goto done;
        }
    }
    Py_DECREF(given);

    /* A tuple (a copy of a list): __index__ of an odd bound cannot change it meanwhile. */
    bounds = PySequence_Tuple(args[1]);
    if (bounds == NULL) goto done;
    Py_ssize_t sentences = PyTuple_GET_SIZE(bounds);
    table = PyMem_Malloc((size_t)(2 * sentences + 1) * sizeof(Py_ssize_t));
    if (table == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t total = 0, longest_sentence = 0;
    for (Py_ssize_t s = 0; s < sentences; s++) {
        Py_ssize_t first, last;
        if (bound_pair(PyTuple_GET_ITEM(bounds, s), &first, &last) < 0) goto done;
        if (first < 0 || last < first || last > words) {
            PyErr_Format(PyExc_ValueError, "features: bound (%zd, %zd) outside 0..%zd",
                         first, last, words);
            goto done;
        }
        for (Py_ssize_t i = first; i < last; i++) {
            int64_t id = ((const int64_t *)ids_view.buf)[i];
            if (id < 0 || id >= known) {
                PyErr_Format(PyExc_IndexError, "features: word id %lld outside the %zd known",
                             (long long)id, known);
                goto done;
            }
        }
        table[2 * s] = first;
        table[2 * s + 1] = last;
        total += last - first;
        if (last - first > longest_sentence) {
            longest_sentence = last - first;
        }
    }

    w.ids = ids_view.buf;
    w.hashes = hashes_view.buf;
    w.flags = flags_view.buf;
    w.multipliers = multipliers;
    w.bounds = table;
    w.sentences = sentences;
    w.kept_hashes = PyMem_RawMalloc((size_t)(longest_sentence + 1) * sizeof(uint64_t));
    w.kept_flags = PyMem_RawMalloc((size_t)(longest_sentence + 1));
    w.values = PyMem_RawMalloc((size_t)(total + 1) * sizeof(int64_t));
    w.counts = PyMem_RawMalloc((size_t)(sentences + 1) * sizeof(Py_ssize_t));
    if (!w.kept_hashes || !w.kept_flags || !w.values || !w.counts) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    compute(&w);
    Py_END_ALLOW_THREADS

    result = PyList_New(sentences);
    if (result == NULL) goto done;
    const int64_t *value = w.values;
    for (Py_ssize_t s = 0; s < sentences; s++) {
        PyObject *tuple = PyTuple_New(w.counts[s]);
        if (tuple == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, s, tuple);
        for (Py_ssize_t i = 0; i < w.counts[s]; i++) {
            PyObject *number = PyLong_FromLongLong(*value++);
            if (number == NULL) {
                Py_CLEAR(result);
                goto done;
            }
            PyTuple_SET_ITEM(tuple, i, number);
        }
    }

done:
    PyMem_RawFree(w.kept_hashes);
    PyMem_RawFree(w.kept_flags);
    PyMem_RawFree(w.values);
    PyMem_RawFree(w.counts);
    PyMem_Free(table);
    PyMem_Free(multipliers);
    Py_XDECREF(bounds);
    if (have_flags) PyBuffer_Release(&flags_view);
    if (have_hashes) PyBuffer_Release(&hashes_view);
    if (have_ids) PyBuffer_Release(&ids_view);
    return result;
}

/* ---- Han sentence words: the loop of detection.words._han_sentence_words ---------------- */

/* The (run, other) pair of item i of pieces (a list of 2-tuples, as _SPLIT_PIECE.findall
 * gives); borrowed references, or -1 with an exception set. */
static int
piece_pair(PyObject *pieces, Py_ssize_t i, PyObject **run, PyObject **other)
{
    PyObject *piece = PyList_GET_ITEM(pieces, i);
    if (!PyTuple_Check(piece) || PyTuple_GET_SIZE(piece) != 2 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(piece, 0)) ||
        !PyUnicode_Check(PyTuple_GET_ITEM(piece, 1))) {
        PyErr_SetString(PyExc_TypeError, "pieces must be a list of (str, str) tuples");
        return -1;
    }
    *run = PyTuple_GET_ITEM(piece, 0);
    *other = PyTuple_GET_ITEM(piece, 1);
    return 0;
}

static PyObject *
han_runs(PyObject *Py_UNUSED(module), PyObject *pieces)
{
    if (!PyList_Check(pieces)) {
        PyErr_SetString(PyExc_TypeError, "han_runs: pieces must be a list");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(pieces), total = 0;
    Py_UCS4 widest = ' ';
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *run, *other;
        if (piece_pair(pieces, i, &run, &other) < 0) {
            return NULL;
        }
        Py_ssize_t length = PyUnicode_GET_LENGTH(run);
        if (length > 0) {
            total += length + 1;
            Py_UCS4 widest_here = PyUnicode_MAX_CHAR_VALUE(run);
            if (widest_here > widest) {
                widest = widest_here;
            }
        }
    }
    PyObject *joined = PyUnicode_New(total, widest);
    if (joined == NULL) {
        return NULL;
    }
    int kind = PyUnicode_KIND(joined);
    void *data = PyUnicode_DATA(joined);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *run = PyTuple_GET_ITEM(PyList_GET_ITEM(pieces, i), 0);
        Py_ssize_t length = PyUnicode_GET_LENGTH(run);
        if (length > 0) {
            if (PyUnicode_CopyCharacters(joined, at, run, 0, length) < 0) {
                Py_DECREF(joined);
                return NULL;
            }
            at += length;
            PyUnicode_WRITE(kind, data, at, ' ');
            at++;
        }
    }
    return joined;
}

/* Whether token is " " (as list.index compares: identity, then ==); -1 on error. */
static int
is_space(PyObject *token, PyObject *space)
{
    if (token == space) {
        return 1;
    }
    if (PyUnicode_CheckExact(token)) {
        return PyUnicode_GET_LENGTH(token) == 1 && PyUnicode_READ_CHAR(token, 0) == ' ';
    }
    Py_INCREF(token);
    int equal = PyObject_RichCompareBool(token, space, Py_EQ);
    Py_DECREF(token);
    return equal;
}

static PyObject *
han_words(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "han_words(pieces, tokens) takes 2 arguments");
        return NULL;
    }
    PyObject *pieces = args[0], *tokens = args[1];
    if (!PyList_Check(pieces) || !PyList_Check(tokens)) {
        PyErr_SetString(PyExc_TypeError, "han_words: pieces and tokens must be lists");
        return NULL;
    }
    PyObject *space = PyUnicode_FromOrdinal(' ');
    PyObject *words = PyList_New(0), *bounds = PyList_New(0), *kept = PyList_New(0);
    PyObject *result = NULL;
    if (space == NULL || words == NULL || bounds == NULL || kept == NULL) {
        goto done;
    }
    Py_ssize_t position = 0, first = 0, number = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pieces); i++) {
        PyObject *run, *other;
        if (piece_pair(pieces, i, &run, &other) < 0) {
            goto done;
        }
        if (PyUnicode_GET_LENGTH(run) > 0) {
            /* stop = tokens.index(" ", position); words += tokens[position:stop] */
            Py_ssize_t stop = position;
            for (;; stop++) {
                if (stop >= PyList_GET_SIZE(tokens)) {
                    PyErr_SetString(PyExc_ValueError, "' ' is not in list");
                    goto done;
                }
                int found = is_space(PyList_GET_ITEM(tokens, stop), space);
                if (found < 0) {
                    goto done;
                }
                if (found) {
                    break;
                }
            }
            for (Py_ssize_t k = position; k < stop && k < PyList_GET_SIZE(tokens); k++) {
                if (PyList_Append(words, PyList_GET_ITEM(tokens, k)) < 0) {
                    goto done;
                }
            }
            position = stop + 1;
        }
        else if (PyUnicode_GET_LENGTH(other) == 1 && PyUnicode_READ_CHAR(other, 0) == 0) {
            Py_ssize_t last = PyList_GET_SIZE(words);
            if (last > first) {
                PyObject *pair = Py_BuildValue("(nn)", first, last);
                if (pair == NULL) {
                    goto done;
                }
                int failed = PyList_Append(bounds, pair);
                Py_DECREF(pair);
                PyObject *index = failed ? NULL : PyLong_FromSsize_t(number);
                if (index == NULL) {
                    goto done;
                }
                failed = PyList_Append(kept, index);
                Py_DECREF(index);
                if (failed) {
                    goto done;
                }
                first = last;
            }
            number++;
        }
        else if (PyList_Append(words, other) < 0) {
            goto done;
        }
    }
    result = PyTuple_Pack(3, words, bounds, kept);

done:
    Py_XDECREF(space);
    Py_XDECREF(words);
    Py_XDECREF(bounds);
    Py_XDECREF(kept);
    return result;
}

/* ---- ASCII sentence words: detection.words._latin_sentence_words of ASCII text ----------- */

#define IS_LETTER(c) ((unsigned)(((c) | 0x20) - 'a') < 26u)
#define IS_DIGIT(c) ((unsigned)((c) - '0') < 10u)
#define IS_ALNUM(c) (IS_LETTER(c) || IS_DIGIT(c))

/* The next match of _ASCII_PIECE at or after *at in s[0:limit]: [a-zA-Z]++(?:'[a-zA-Z]++)*+
 * or [0-9]++(?:[.,][0-9]++)*+.  Returns its start and sets *at to its end, or -1. */
static Py_ssize_t
ascii_piece(const Py_UCS1 *s, Py_ssize_t *at, Py_ssize_t limit)
{
    Py_ssize_t p = *at;
    while (p < limit && !IS_ALNUM(s[p])) {
        p++;
    }
    if (p >= limit) {
        return -1;
    }
    Py_ssize_t start = p;
    if (IS_LETTER(s[p])) {
        for (;;) {
            while (p < limit && IS_LETTER(s[p])) p++;
            if (p + 1 < limit && s[p] == '\'' && IS_LETTER(s[p + 1])) {
                p++;
                continue;
            }
            break;
        }
    }
    else {
        for (;;) {
            while (p < limit && IS_DIGIT(s[p])) p++;
            if (p + 1 < limit && (s[p] == '.' || s[p] == ',') && IS_DIGIT(s[p + 1])) {
                p++;
                continue;
            }
            break;
        }
    }
    *at = p;
    return start;
}

/* words._joins for ASCII text. */
static int
ascii_joins(const Py_UCS1 *s, Py_ssize_t length, Py_ssize_t position)
{
    if (position <= 0 || position >= length) {
        return 0;
    }
    Py_UCS1 before = s[position - 1], after = s[position];
    if (after == ' ' || after == '\n' || before == ' ' || before == '\n') {
        return 0;
    }
    if (IS_ALNUM(before)) {
        return IS_ALNUM(after) || after == '\'' || ((after == '.' || after == ',') &&
                                                   IS_DIGIT(before));
    }
    if (before == '\'') {
        return IS_ALNUM(after);
    }
    return (before == '.' || before == ',') && IS_DIGIT(after);
}

static int
append_word(PyObject *words, const Py_UCS1 *s, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *word = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, s + start, end - start);
    if (word == NULL) {
        return -1;
    }
    int failed = PyList_Append(words, word);
    Py_DECREF(word);
    return failed;
}

static PyObject *
ascii_words(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "ascii_words(text, spans) takes 2 arguments");
        return NULL;
    }
    PyObject *text = args[0];
    if (!PyUnicode_Check(text) || !PyUnicode_IS_ASCII(text)) {
        PyErr_SetString(PyExc_TypeError, "ascii_words: text must be an ASCII str");
        return NULL;
    }
    PyObject *spans = PySequence_Fast(args[1], "ascii_words: spans must be a sequence");
    if (spans == NULL) {
        return NULL;
    }
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    PyObject *words = PyList_New(0), *bounds = PyList_New(0), *kept = PyList_New(0);
    PyObject *result = NULL;
    if (words == NULL || bounds == NULL || kept == NULL) {
        goto done;
    }
    Py_ssize_t resume = 0; /* where the whole-text scan resumes: never inside a word */
    /* the size read again each time: a span's __index__ could change a list of spans */
    for (Py_ssize_t number = 0; number < PySequence_Fast_GET_SIZE(spans); number++) {
        Py_ssize_t start, end;
        if (bound_pair(PySequence_Fast_GET_ITEM(spans, number), &start, &end) < 0) {
            goto done;
        }
        if (start < 0 || end < start || end > length) { /* the Python path decides */
            result = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        Py_ssize_t first = PyList_GET_SIZE(words);
        /* padded[start] is s[start - 1], padded[end + 1] is s[end] (" " outside the text) */
        if (resume <= start && start > 0 && s[start - 1] != ' ' && s[start - 1] != '\n' &&
            ascii_joins(s, length, start)) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        if (start < resume) {
            start = resume;
        }
        Py_ssize_t at = start, piece;
        if (end < length && s[end] != ' ' && s[end] != '\n' && ascii_joins(s, length, end)) {
            /* the last word may run on past the span: it stays here */
            while ((piece = ascii_piece(s, &at, length)) >= 0 && piece < end) {
                if (append_word(words, s, piece, at) < 0) goto done;
                resume = at;
            }
        }
        else {
            while ((piece = ascii_piece(s, &at, end)) >= 0) {
                if (append_word(words, s, piece, at) < 0) goto done;
            }
            if (end > resume) {
                resume = end;
            }
        }
        Py_ssize_t last = PyList_GET_SIZE(words);
        if (last > first) {
            PyObject *pair = Py_BuildValue("(nn)", first, last);
            if (pair == NULL) goto done;
            int failed = PyList_Append(bounds, pair);
            Py_DECREF(pair);
            PyObject *index = failed ? NULL : PyLong_FromSsize_t(number);
            if (index == NULL) goto done;
            failed = PyList_Append(kept, index);
            Py_DECREF(index);
            if (failed) goto done;
        }
    }
    result = PyTuple_Pack(3, words, bounds, kept);

done:
    Py_DECREF(spans);
    Py_XDECREF(words);
    Py_XDECREF(bounds);
    Py_XDECREF(kept);
    return result;
}

static PyMethodDef methods[] = {
    {"features", (PyCFunction)(void (*)(void))features, METH_FASTCALL,
     "features(ids, bounds, hashes, flags, multipliers, chain_length, han_chain_length, "
     "chain_gap) -> list[tuple[int, ...]]: the sorted unique features of every sentence."},
    {"ascii_words", (PyCFunction)(void (*)(void))ascii_words, METH_FASTCALL,
     "ascii_words(text, spans) -> (words, bounds, kept) | None | NotImplemented: "
     "detection.words._latin_sentence_words of ASCII text."},
    {"han_runs", (PyCFunction)han_runs, METH_O,
     "han_runs(pieces) -> str: every non-empty run of the (run, other) pieces followed by a "
     "space (\"\" when there is none)."},
    {"han_words", (PyCFunction)(void (*)(void))han_words, METH_FASTCALL,
     "han_words(pieces, tokens) -> (words, bounds, kept): the loop of "
     "detection.words._han_sentence_words over the pieces and rjieba's tokens."},
    {"word_hash", (PyCFunction)(void (*)(void))word_hash, METH_FASTCALL,
     "word_hash(word, key) -> int: int.from_bytes(blake2b(word.encode(), digest_size=8, "
     "key=key).digest(), 'big')."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "detection._lisfeatures",
    .m_doc = "Low-IDF-Sig document features in C (see detection/vocabulary.py).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__lisfeatures(void)
{
    if (PyType_Ready(&TableType) < 0) {
        return NULL;
    }
    PyObject *created = PyModule_Create(&module);
    if (created == NULL) {
        return NULL;
    }
    Py_INCREF(&TableType);
    if (PyModule_AddObject(created, "Table", (PyObject *)&TableType) < 0) {
        Py_DECREF(&TableType);
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
