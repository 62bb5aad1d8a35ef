// SPDX-License-Identifier: MIT
/*
 * Program images: the executable segments and symbols of RISC-V ELF files
 * (libelf) and raw blobs, with source lines read lazily from DWARF (libdw).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "spoor/error.h"
#include "spoor/image.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

/* Largest segment we copy (bounds the zero fill of broken files). */
#define MAX_SEGMENT_SIZE	(1ULL << 30)
/* Largest decompressed debug section we let libdw allocate. */
#define MAX_DEBUG_SECTION	(1ULL << 30)
/*
 * Zero bytes after the file copy libdw reads: a string that a broken file
 * leaves unterminated ends there instead of beyond the buffer.
 */
#define FILE_PAD		4096

/* DWARF state of an ELF source. */
enum dwarf_state {
	DWARF_UNTRIED,
	DWARF_OPEN,
	DWARF_FAILED,
};

/* One added ELF file or raw blob. */
struct image_src {
	char *name;		/* path or raw name, for messages */
	char *names;		/* its symbol names, NUL-terminated one after another */
	int64_t offset;		/* load offset added to every ELF address */
	int is_elf;
	struct stat st;		/* the file as loaded, to recheck before reading DWARF */
	enum dwarf_state dwarf_state;
	uint8_t *file;		/* the whole file, for libdw, once lines are asked for */
	Elf *elf;
	Dwarf *dwarf;
	/*
	 * Relative DWARF file names joined to their unit's DW_AT_comp_dir, by
	 * the name's pointer into libdw's file table (open addressing).
	 */
	struct joined_name *joined;
	size_t njoined, joined_cap;
};

struct joined_name {
	const char *raw;	/* dwarf_linesrc()'s name */
	char *path;		/* comp_dir/raw */
};

/* One executable segment, [start, end), with its bytes. */
struct image_seg {
	uint64_t start;
	uint64_t end;
	uint8_t *bytes;
	struct image_src *src;
};

/* One symbol, covering [addr, end): its size, or up to the next symbol. */
struct image_sym {
	uint64_t addr;
	uint64_t end;
	uint64_t reach;		/* highest end of this and every lower symbol */
	const char *name;
	int rank;		/* preference among symbols at one address */
	uint8_t kind;		/* enum spoor_image_sym_kind */
};

struct spoor_image {
	struct image_src **srcs;
	size_t nsrcs;
	struct image_seg *segs;	/* sorted by address, disjoint */
	size_t nsegs;
	struct image_sym *syms;	/* sorted by address, then rank */
	size_t nsyms;
	unsigned xlen;
	int rvc;		/* an ELF file's e_flags has EF_RISCV_RVC */
	const char *elf_name;	/* the first ELF file's name */
};

/* What one spoor_image_add_*() call adds, before it is merged. */
struct image_add {
	struct image_src *src;
	struct image_seg *segs;
	size_t nsegs;
	struct image_sym *syms;
	size_t nsyms;
};

/* State of loading one ELF file. */
struct elf_load {
	const char *path;
	struct spoor_diag *diag;
	int64_t offset;
	int fd;
	Elf *elf;
	struct stat st;
	GElf_Ehdr ehdr;
	struct image_add add;
};

/* Fills @diag with "PATH: message"; returns @err. */
__attribute__((format(printf, 3, 4)))
static int load_fail(struct elf_load *ld, int err, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(ld->diag->msg, sizeof(ld->diag->msg), "%s: %s", ld->path, msg);
	return err;
}

/* Returns the last libelf error as text. */
static const char *elf_why(void)
{
	const char *s = elf_errmsg(-1);

	return s ? s : "unknown libelf error";
}

struct spoor_image *spoor_image_new(void)
{
	return calloc(1, sizeof(struct spoor_image));
}

/* Closes the DWARF of @src, if open. */
static void src_close_dwarf(struct image_src *src)
{
	if (src->dwarf)
		dwarf_end(src->dwarf);
	if (src->elf)
		elf_end(src->elf);
	free(src->file);
	for (size_t i = 0; i < src->joined_cap; i++)
		free(src->joined[i].path);
	free(src->joined);
	src->joined = NULL;
	src->njoined = src->joined_cap = 0;
	src->dwarf = NULL;
	src->elf = NULL;
	src->file = NULL;
}

/* Frees @src (may be NULL). */
static void src_free(struct image_src *src)
{
	if (!src)
		return;
	src_close_dwarf(src);
	free(src->name);
	free(src->names);
	free(src);
}

/* Returns a new source named @name, or NULL (no memory). */
static struct image_src *src_new(const char *name)
{
	struct image_src *src = calloc(1, sizeof(*src));

	if (!src)
		return NULL;
	src->name = strdup(name);
	if (!src->name) {
		free(src);
		return NULL;
	}
	return src;
}

/* Frees what @add holds (after a failure, or its arrays after a merge). */
static void add_free(struct image_add *add, int keep_contents)
{
	size_t i;

	if (!keep_contents) {
		for (i = 0; i < add->nsegs; i++)
			free(add->segs[i].bytes);
		src_free(add->src);
	}
	free(add->segs);
	free(add->syms);
	memset(add, 0, sizeof(*add));
}

void spoor_image_free(struct spoor_image *img)
{
	size_t i;

	if (!img)
		return;
	for (i = 0; i < img->nsegs; i++)
		free(img->segs[i].bytes);
	for (i = 0; i < img->nsrcs; i++)
		src_free(img->srcs[i]);
	free(img->srcs);
	free(img->segs);
	free(img->syms);
	free(img);
}

/* qsort order of segments: by start address. */
static int seg_cmp(const void *a, const void *b)
{
	const struct image_seg *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * qsort order of symbols: by address, then rank, then name backwards, so
 * that scanning down from an address meets the preferred symbol first.
 */
static int sym_cmp(const void *a, const void *b)
{
	const struct image_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(y->name, x->name);
}

/* Returns the index of the segment of @img covering @addr, or -1. */
static ptrdiff_t seg_find(const struct spoor_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->nsegs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < img->segs[mid].start)
			hi = mid;
		else if (addr >= img->segs[mid].end)
			lo = mid + 1;
		else
			return (ptrdiff_t)mid;
	}
	return -1;
}

/* The printf format and arguments of a segment: "NAME [0xSTART, 0xEND)". */
#define SEG_FMT		"%s [0x%" PRIx64 ", 0x%" PRIx64 ")"
#define SEG_ARGS(seg)	(seg)->src->name, (seg)->start, (seg)->end

/*
 * Merges the segments of @add into @img's in a new sorted array.  Returns 0
 * and sets *@out, SPOOR_E_NOMEM, or SPOOR_E_OVERLAP with @diag (if any)
 * naming both segments.
 */
static int merge_segs(const struct spoor_image *img, const struct image_add *add,
		      struct image_seg **out, struct spoor_diag *diag)
{
	size_t n = img->nsegs + add->nsegs, i;
	struct image_seg *segs;

	segs = malloc(n * sizeof(*segs));
	if (!segs)
		return SPOOR_E_NOMEM;
	if (img->nsegs)
		memcpy(segs, img->segs, img->nsegs * sizeof(*segs));
	memcpy(segs + img->nsegs, add->segs, add->nsegs * sizeof(*segs));
	qsort(segs, n, sizeof(*segs), seg_cmp);
	for (i = 1; i < n; i++) {
		if (segs[i].start >= segs[i - 1].end)
			continue;
		if (diag) {
			int fresh = segs[i].src == add->src;
			const struct image_seg *a = &segs[fresh ? i : i - 1];
			const struct image_seg *b = &segs[fresh ? i - 1 : i];

			snprintf(diag->msg, sizeof(diag->msg), "%s: segment " SEG_FMT
				 " overlaps " SEG_FMT, add->src->name, SEG_ARGS(a), SEG_ARGS(b));
		}
		free(segs);
		return SPOOR_E_OVERLAP;
	}
	*out = segs;
	return 0;
}

/* Merges the symbols of @add into @img's in a new sorted array; returns 0 or SPOOR_E_NOMEM. */
static int merge_syms(const struct spoor_image *img, const struct image_add *add,
		      struct image_sym **out, size_t *count)
{
	size_t n = img->nsyms + add->nsyms, i;
	struct image_sym *syms;
	uint64_t reach = 0;

	syms = malloc((n ? n : 1) * sizeof(*syms));
	if (!syms)
		return SPOOR_E_NOMEM;
	if (img->nsyms)
		memcpy(syms, img->syms, img->nsyms * sizeof(*syms));
	if (add->nsyms)
		memcpy(syms + img->nsyms, add->syms, add->nsyms * sizeof(*syms));
	qsort(syms, n, sizeof(*syms), sym_cmp);
	for (i = 0; i < n; i++) {
		if (syms[i].end > reach)
			reach = syms[i].end;
		syms[i].reach = reach;
	}
	*out = syms;
	*count = n;
	return 0;
}

/*
 * Adds everything @add holds to @img, or nothing.  Returns 0, SPOOR_E_NOMEM
 * or SPOOR_E_OVERLAP (with @diag, if not NULL).  On success @add's segment
 * bytes and source belong to @img.
 */
static int image_commit(struct spoor_image *img, struct image_add *add, struct spoor_diag *diag)
{
	struct image_src **srcs;
	struct image_seg *segs;
	struct image_sym *syms;
	size_t nsyms;
	int ret;

	srcs = realloc(img->srcs, (img->nsrcs + 1) * sizeof(*srcs));
	if (!srcs)
		return SPOOR_E_NOMEM;
	img->srcs = srcs;
	ret = merge_segs(img, add, &segs, diag);
	if (ret)
		return ret;
	ret = merge_syms(img, add, &syms, &nsyms);
	if (ret) {
		free(segs);
		return ret;
	}
	free(img->segs);
	free(img->syms);
	img->segs = segs;
	img->nsegs += add->nsegs;
	img->syms = syms;
	img->nsyms = nsyms;
	img->srcs[img->nsrcs++] = add->src;
	return 0;
}

/* Returns 1 when @count entries of @entsize bytes at @off lie within @size bytes. */
static int in_file(uint64_t off, uint64_t count, uint64_t entsize, uint64_t size)
{
	if (off > size)
		return 0;
	if (entsize && count > (size - off) / entsize)
		return 0;
	return 1;
}

/* Opens @ld->path as a RISC-V ELF file; returns 0 or a negative error with the diag. */
static int elf_open(struct elf_load *ld)
{
	unsigned char magic[4];

	/* O_NONBLOCK: a FIFO must not hang us before fstat() rejects it. */
	ld->fd = open(ld->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (ld->fd < 0)
		return load_fail(ld, SPOOR_E_IO, "%s", strerror(errno));
	if (fstat(ld->fd, &ld->st))
		return load_fail(ld, SPOOR_E_IO, "%s", strerror(errno));
	if (!S_ISREG(ld->st.st_mode))
		return load_fail(ld, SPOOR_E_BAD_ELF, "not a regular file");
	if (ld->st.st_size == 0)
		return load_fail(ld, SPOOR_E_BAD_ELF, "empty file");
	if (ld->st.st_size < (off_t)sizeof(magic) ||
	    pread(ld->fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, ELFMAG, SELFMAG))
		return load_fail(ld, SPOOR_E_BAD_ELF, "not an ELF file");
	ld->elf = elf_begin(ld->fd, ELF_C_READ, NULL);
	if (!ld->elf)
		return load_fail(ld, SPOOR_E_BAD_ELF, "%s", elf_why());
	if (elf_kind(ld->elf) != ELF_K_ELF || !gelf_getehdr(ld->elf, &ld->ehdr))
		return load_fail(ld, SPOOR_E_BAD_ELF, "truncated or broken ELF header");
	if (ld->ehdr.e_machine != EM_RISCV)
		return load_fail(ld, SPOOR_E_BAD_ELF, "not a RISC-V ELF file (machine %u)",
				 (unsigned)ld->ehdr.e_machine);
	if (gelf_getclass(ld->elf) != ELFCLASS32 && gelf_getclass(ld->elf) != ELFCLASS64)
		return load_fail(ld, SPOOR_E_BAD_ELF, "unknown ELF class");
	/* Instructions stay on their IALIGN boundary: 16 bits with C, else 32. */
	if (ld->offset & ((ld->ehdr.e_flags & EF_RISCV_RVC) ? 1 : 3))
		return load_fail(ld, SPOOR_E_BAD_ELF, "load offset %" PRId64 " is not a multiple of "
				 "%d (the program's instruction alignment)", ld->offset,
				 (ld->ehdr.e_flags & EF_RISCV_RVC) ? 2 : 4);
	return 0;
}

/* Checks that the header tables and all sections lie in the file; returns 0 or SPOOR_E_BAD_ELF. */
static int elf_check_tables(struct elf_load *ld)
{
	uint64_t size = (uint64_t)ld->st.st_size;
	size_t phsize = gelf_fsize(ld->elf, ELF_T_PHDR, 1, EV_CURRENT);
	size_t shsize = gelf_fsize(ld->elf, ELF_T_SHDR, 1, EV_CURRENT);
	size_t phnum, shnum, i;
	GElf_Shdr sh;
	Elf_Scn *scn;

	/* libelf clips its counts to what the file holds: use the header's. */
	phnum = ld->ehdr.e_phnum;
	shnum = ld->ehdr.e_shnum;
	if ((phnum == PN_XNUM && elf_getphdrnum(ld->elf, &phnum)) ||
	    (!shnum && ld->ehdr.e_shoff && elf_getshdrnum(ld->elf, &shnum)))
		return load_fail(ld, SPOOR_E_BAD_ELF, "truncated (%s)", elf_why());
	if (phnum && !in_file(ld->ehdr.e_phoff, phnum, phsize, size))
		return load_fail(ld, SPOOR_E_BAD_ELF, "truncated (program headers end beyond "
				 "the file's %" PRIu64 " bytes)", size);
	if (shnum && !in_file(ld->ehdr.e_shoff, shnum, shsize, size))
		return load_fail(ld, SPOOR_E_BAD_ELF, "truncated (section headers end beyond "
				 "the file's %" PRIu64 " bytes)", size);
	for (i = 1; i < shnum; i++) {
		scn = elf_getscn(ld->elf, i);
		if (!scn || !gelf_getshdr(scn, &sh))
			return load_fail(ld, SPOOR_E_BAD_ELF, "section %zu: %s", i, elf_why());
		if (sh.sh_type == SHT_NOBITS)
			continue;
		if (!in_file(sh.sh_offset, sh.sh_size, 1, size))
			return load_fail(ld, SPOOR_E_BAD_ELF,
					 "truncated (section %zu ends beyond the file's %" PRIu64
					 " bytes)", i, size);
	}
	return 0;
}

/* Reads @len bytes at @off of @fd into @buf; returns 0 or -1. */
static int read_at(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Copies program header @i (an executable PT_LOAD) into a new segment; returns 0 or an error. */
static int elf_load_segment(struct elf_load *ld, size_t i, const GElf_Phdr *ph)
{
	struct image_seg *seg = &ld->add.segs[ld->add.nsegs];
	uint64_t start = ph->p_vaddr + (uint64_t)ld->offset;

	if (ph->p_filesz > ph->p_memsz)
		return load_fail(ld, SPOOR_E_BAD_ELF, "segment %zu: file size above memory size",
				 i);
	if (!in_file(ph->p_offset, ph->p_filesz, 1, (uint64_t)ld->st.st_size))
		return load_fail(ld, SPOOR_E_BAD_ELF,
				 "truncated (segment %zu ends beyond the file's %" PRIu64 " bytes)",
				 i, (uint64_t)ld->st.st_size);
	if (ph->p_memsz > MAX_SEGMENT_SIZE)
		return load_fail(ld, SPOOR_E_BAD_ELF, "segment %zu: %" PRIu64 " bytes is too large",
				 i, (uint64_t)ph->p_memsz);
	if (start + ph->p_memsz <= start || (ld->offset < 0 && ph->p_vaddr < -(uint64_t)ld->offset) ||
	    (ld->offset > 0 && start < ph->p_vaddr) ||
	    (gelf_getclass(ld->elf) == ELFCLASS32 && start + ph->p_memsz > (UINT64_C(1) << 32)))
		return load_fail(ld, SPOOR_E_BAD_ELF,
				 "segment %zu: [0x%" PRIx64 ", +0x%" PRIx64
				 ") does not fit the address space", i, start,
				 (uint64_t)ph->p_memsz);
	seg->bytes = calloc(1, (size_t)ph->p_memsz);
	if (!seg->bytes)
		return load_fail(ld, SPOOR_E_NOMEM, "out of memory");
	seg->start = start;
	seg->end = start + ph->p_memsz;
	seg->src = ld->add.src;
	ld->add.nsegs++;
	if (read_at(ld->fd, seg->bytes, (size_t)ph->p_filesz, ph->p_offset))
		return load_fail(ld, SPOOR_E_IO, "segment %zu: read failed", i);
	return 0;
}

/* Copies every executable PT_LOAD segment; returns 0 or an error. */
static int elf_load_segments(struct elf_load *ld)
{
	size_t phnum, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(ld->elf, &phnum))
		return load_fail(ld, SPOOR_E_BAD_ELF, "%s", elf_why());
	ld->add.segs = calloc(phnum ? phnum : 1, sizeof(*ld->add.segs));
	if (!ld->add.segs)
		return load_fail(ld, SPOOR_E_NOMEM, "out of memory");
	for (i = 0; i < phnum; i++) {
		int ret;

		if (!gelf_getphdr(ld->elf, (int)i, &ph))
			return load_fail(ld, SPOOR_E_BAD_ELF, "program header %zu: %s", i,
					 elf_why());
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_memsz)
			continue;
		ret = elf_load_segment(ld, i, &ph);
		if (ret)
			return ret;
	}
	if (!ld->add.nsegs)
		return load_fail(ld, SPOOR_E_BAD_ELF, "no executable segment");
	return 0;
}

/* Returns the symbol table section (SHT_SYMTAB, else SHT_DYNSYM) of @elf, or NULL. */
static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB)
			return scn;
		if (sh->sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = *sh;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

/* Returns the SHT_SYMTAB_SHNDX data of symbol table section @symndx, or NULL. */
static Elf_Data *find_shndx(Elf *elf, size_t symndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == symndx)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* Returns 1 when section @ndx of @elf holds instructions. */
static int section_is_code(Elf *elf, Elf32_Word ndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (ndx == SHN_UNDEF)
		return 0;
	scn = elf_getscn(elf, ndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Returns 1 when @name is worth showing (not empty, not a local or mapping label). */
static int good_name(const char *name)
{
	const unsigned char *p;

	if (!name || !name[0] || name[0] == '$' || !strncmp(name, ".L", 2))
		return 0;
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p < 0x20)
			return 0;
	}
	return 1;
}

/*
 * Returns the name of symbol @sym (in section @ndx, 0 for none such as
 * SHN_ABS) when it is a function, an object or a label in code, else NULL.
 */
static const char *wanted_symbol(Elf *elf, size_t strndx, const GElf_Sym *sym, Elf32_Word ndx)
{
	const char *name;

	switch (GELF_ST_TYPE(sym->st_info)) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
	case STT_OBJECT:
		break;
	case STT_NOTYPE:
		if (!section_is_code(elf, ndx))
			return NULL;
		break;
	default:
		return NULL;
	}
	name = elf_strptr(elf, strndx, sym->st_name);
	return good_name(name) ? name : NULL;
}

/* Returns the preference of @sym among symbols at one address: sized, then global, then weak. */
static int sym_rank(const GElf_Sym *sym)
{
	int rank = sym->st_size ? 4 : 0;

	if (GELF_ST_BIND(sym->st_info) == STB_GLOBAL)
		rank += 2;
	else if (GELF_ST_BIND(sym->st_info) == STB_WEAK)
		rank += 1;
	return rank;
}

/* Returns the end of the segment of @add covering @addr, or 0. */
static uint64_t add_seg_end(const struct image_add *add, uint64_t addr)
{
	size_t i;

	for (i = 0; i < add->nsegs; i++) {
		if (addr >= add->segs[i].start && addr < add->segs[i].end)
			return add->segs[i].end;
	}
	return 0;
}

/*
 * Sorts the symbols of @add and gives each unsized one an end: the next
 * higher symbol, cut at the end of its segment (one byte outside segments).
 */
static void add_finish_syms(struct image_add *add)
{
	size_t i, j = 0;

	qsort(add->syms, add->nsyms, sizeof(*add->syms), sym_cmp);
	for (i = 0; i < add->nsyms; i++) {
		struct image_sym *s = &add->syms[i];
		uint64_t seg_end;

		if (s->end)
			continue;
		if (j <= i)
			j = i + 1;
		while (j < add->nsyms && add->syms[j].addr == s->addr)
			j++;
		seg_end = add_seg_end(add, s->addr);
		s->end = j < add->nsyms ? add->syms[j].addr : UINT64_MAX;
		if (!seg_end)
			s->end = s->addr + 1 ? s->addr + 1 : UINT64_MAX;
		else if (seg_end < s->end)
			s->end = seg_end;
	}
}

/* Stores symbol @sym named @name at the next place of @ld's symbols and names. */
static void elf_store_symbol(struct elf_load *ld, const GElf_Sym *sym, const char *name,
			     size_t *pool_used)
{
	struct image_sym *s = &ld->add.syms[ld->add.nsyms++];
	size_t len = strlen(name) + 1;
	uint64_t addr = sym->st_value + (uint64_t)ld->offset;

	memcpy(ld->add.src->names + *pool_used, name, len);
	s->name = ld->add.src->names + *pool_used;
	*pool_used += len;
	s->addr = addr;
	s->end = sym->st_size ? addr + sym->st_size : 0;
	if (sym->st_size && s->end < addr)
		s->end = UINT64_MAX;
	s->rank = sym_rank(sym);
	switch (GELF_ST_TYPE(sym->st_info)) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
		s->kind = SPOOR_SYM_FUNC;
		break;
	case STT_OBJECT:
		s->kind = SPOOR_SYM_OBJECT;
		break;
	default:
		s->kind = SPOOR_SYM_LABEL;
		break;
	}
}

/*
 * Walks the wanted symbols of @data: counts them and their name bytes
 * (@store 0), or stores them (@store 1).  Returns 0 or SPOOR_E_BAD_ELF.
 */
static int elf_walk_symbols(struct elf_load *ld, Elf_Data *data, Elf_Data *xndx, size_t count,
			    size_t strndx, int store, size_t *nsyms, size_t *pool)
{
	size_t i;

	for (i = 1; i < count; i++) {
		Elf32_Word ndx;
		const char *name;
		GElf_Sym sym;

		ndx = 0;
		if (!gelf_getsymshndx(data, xndx, (int)i, &sym, &ndx))
			return load_fail(ld, SPOOR_E_BAD_ELF, "symbol %zu: %s", i, elf_why());
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_COMMON)
			continue;
		if (sym.st_shndx == SHN_XINDEX && !xndx)
			continue;
		if (sym.st_shndx != SHN_XINDEX)
			ndx = sym.st_shndx < SHN_LORESERVE ? sym.st_shndx : 0;
		name = wanted_symbol(ld->elf, strndx, &sym, ndx);
		if (!name)
			continue;
		if (store) {
			elf_store_symbol(ld, &sym, name, pool);
		} else {
			(*nsyms)++;
			*pool += strlen(name) + 1;
		}
	}
	return 0;
}

/* Reads the function, object and code label symbols; returns 0 or an error. */
static int elf_load_symbols(struct elf_load *ld)
{
	size_t nsyms = 0, pool = 0, used = 0, count;
	Elf_Data *data, *xndx;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int ret;

	scn = find_symtab(ld->elf, &sh);
	if (!scn)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data)
		return load_fail(ld, SPOOR_E_BAD_ELF, "symbol table: %s", elf_why());
	xndx = find_shndx(ld->elf, elf_ndxscn(scn));
	count = data->d_size / gelf_fsize(ld->elf, ELF_T_SYM, 1, EV_CURRENT);
	ret = elf_walk_symbols(ld, data, xndx, count, sh.sh_link, 0, &nsyms, &pool);
	if (ret || !nsyms)
		return ret;
	ld->add.syms = calloc(nsyms, sizeof(*ld->add.syms));
	ld->add.src->names = malloc(pool);
	if (!ld->add.syms || !ld->add.src->names)
		return load_fail(ld, SPOOR_E_NOMEM, "out of memory");
	ret = elf_walk_symbols(ld, data, xndx, count, sh.sh_link, 1, &nsyms, &used);
	if (ret)
		return ret;
	add_finish_syms(&ld->add);
	return 0;
}

/* Loads the segments and symbols of the open ELF; returns 0 or an error. */
static int elf_load(struct elf_load *ld)
{
	int ret;

	ret = elf_check_tables(ld);
	if (ret)
		return ret;
	ld->add.src = src_new(ld->path);
	if (!ld->add.src)
		return load_fail(ld, SPOOR_E_NOMEM, "out of memory");
	ld->add.src->is_elf = 1;
	ld->add.src->offset = ld->offset;
	ld->add.src->st = ld->st;
	ret = elf_load_segments(ld);
	if (ret)
		return ret;
	return elf_load_symbols(ld);
}

int spoor_image_add_elf(struct spoor_image *img, const char *path, int64_t offset,
			struct spoor_diag *diag)
{
	struct elf_load ld = { .path = path, .diag = diag, .offset = offset, .fd = -1 };
	unsigned xlen;
	int ret;

	if (!diag)
		return SPOOR_E_INVAL;
	diag->msg[0] = '\0';
	if (!img || !path) {
		snprintf(diag->msg, sizeof(diag->msg), "no image set or path");
		return SPOOR_E_INVAL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		ret = load_fail(&ld, SPOOR_E_BAD_ELF, "libelf: %s", elf_why());
		goto out;
	}
	ret = elf_open(&ld);
	if (ret)
		goto out;
	xlen = gelf_getclass(ld.elf) == ELFCLASS64 ? 64 : 32;
	if (img->xlen && img->xlen != xlen) {
		ret = load_fail(&ld, SPOOR_E_MISMATCH, "an RV%u program, but the image already "
				"holds RV%u programs", xlen, img->xlen);
		goto out;
	}
	ret = elf_load(&ld);
	if (ret)
		goto out;
	ret = image_commit(img, &ld.add, diag);
	if (ret == SPOOR_E_NOMEM)
		load_fail(&ld, ret, "out of memory");
	if (ret)
		goto out;
	if (!img->xlen)
		img->xlen = xlen;
	if (ld.ehdr.e_flags & EF_RISCV_RVC)
		img->rvc = 1;
	if (!img->elf_name)
		img->elf_name = ld.add.src->name;
	add_free(&ld.add, 1);
out:
	if (ret)
		add_free(&ld.add, 0);
	if (ld.elf)
		elf_end(ld.elf);
	if (ld.fd >= 0)
		close(ld.fd);
	return ret;
}

int spoor_image_add_raw(struct spoor_image *img, const char *name, uint64_t base,
			const uint8_t *bytes, size_t len)
{
	struct image_add add = { 0 };
	struct image_seg seg;
	struct image_sym sym;
	int ret;

	if (!img || !name || !name[0] || !bytes || !len || base + len <= base)
		return SPOOR_E_INVAL;
	add.src = src_new(name);
	seg.bytes = malloc(len);
	if (!add.src || !seg.bytes) {
		free(seg.bytes);
		src_free(add.src);
		return SPOOR_E_NOMEM;
	}
	memcpy(seg.bytes, bytes, len);
	seg.start = base;
	seg.end = base + len;
	seg.src = add.src;
	sym = (struct image_sym){ .addr = base, .end = base + len, .name = add.src->name,
				  .rank = 6, .kind = SPOOR_SYM_FUNC };
	add.segs = &seg;
	add.nsegs = 1;
	add.syms = &sym;
	add.nsyms = 1;
	ret = image_commit(img, &add, NULL);
	if (ret) {
		free(seg.bytes);
		src_free(add.src);
	}
	return ret;
}

int spoor_image_add_spike_rom(struct spoor_image *img, unsigned xlen)
{
	uint32_t words[5] = {
		0x00000297,	/* auipc t0, 0 */
		0x02028593,	/* addi a1, t0, 32 */
		0xf1402573,	/* csrr a0, mhartid */
		0x0182b283,	/* ld t0, 24(t0) (RV64) */
		0x00028067,	/* jr t0 */
	};
	uint8_t bytes[sizeof(words)];
	size_t i;

	if (xlen != 32 && xlen != 64)
		return SPOOR_E_INVAL;
	if (xlen == 32)
		words[3] = 0x0182a283;	/* lw t0, 24(t0) */
	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(words[i / 4] >> (8 * (i % 4)));
	return spoor_image_add_raw(img, "spike-bootrom", 0x1000, bytes, sizeof(bytes));
}

const uint8_t *spoor_image_ptr(const struct spoor_image *img, uint64_t addr, size_t *avail)
{
	const struct image_seg *seg;
	ptrdiff_t i;

	if (avail)
		*avail = 0;
	if (!img)
		return NULL;
	i = seg_find(img, addr);
	if (i < 0)
		return NULL;
	seg = &img->segs[i];
	if (avail)
		*avail = (size_t)(seg->end - addr);
	return seg->bytes + (addr - seg->start);
}

int spoor_image_insn(const struct spoor_image *img, uint64_t addr, unsigned xlen,
		     struct spoor_insn *out)
{
	const uint8_t *b;
	size_t avail = 0;
	uint32_t raw;
	int ret;

	if (!img || !out)
		return SPOOR_E_INVAL;
	b = spoor_image_ptr(img, addr, &avail);
	if (!b || avail < 2)
		return SPOOR_E_NO_IMAGE;
	raw = (uint32_t)b[0] | (uint32_t)b[1] << 8;
	if ((raw & 3) == 3) {
		if (avail < 4) {
			out->cls = SPOOR_INSN_INVALID;
			out->len = 0;
			return SPOOR_E_BAD_INSN;
		}
		raw |= (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	}
	ret = spoor_insn_decode(raw, xlen, out);
	return ret < 0 ? SPOOR_E_BAD_INSN : ret;
}

unsigned spoor_image_xlen(const struct spoor_image *img)
{
	return img ? img->xlen : 0;
}

int spoor_image_rvc(const struct spoor_image *img)
{
	return img ? img->rvc : 0;
}

const char *spoor_image_elf_name(const struct spoor_image *img)
{
	return img ? img->elf_name : NULL;
}

/* Returns the number of symbols of @img at or below @addr. */
static size_t syms_upto(const struct spoor_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Returns the preferred symbol covering @addr among the first @n symbols
 * (those at or below it, syms_upto()), or NULL.
 */
static const struct image_sym *sym_covering(const struct spoor_image *img, size_t n,
					    uint64_t addr)
{
	while (n-- > 0) {
		const struct image_sym *s = &img->syms[n];

		if (s->reach <= addr)
			break;
		if (s->end > addr)
			return s;
	}
	return NULL;
}

/* Finds the symbol containing @addr (image.h). */
int spoor_image_symbol(const struct spoor_image *img, uint64_t addr, const char **name,
		       uint64_t *offset)
{
	const struct image_sym *s;

	if (!img || !name || !offset)
		return SPOOR_E_INVAL;
	s = sym_covering(img, syms_upto(img, addr), addr);
	if (!s)
		return SPOOR_E_NOT_FOUND;
	*name = s->name;
	*offset = addr - s->addr;
	return 0;
}

/*
 * Finds objdump's symbol for @addr (image.h).  When none covers @addr, every
 * symbol at or below it ends at or below it, so the highest address below
 * @addr that a symbol covers is the reach of those symbols minus one, and
 * none of them starts above that: the symbols covering it are among the
 * same ones.
 */
int spoor_image_symbol_floor(const struct spoor_image *img, uint64_t addr, const char **name,
			     uint64_t *offset)
{
	const struct image_sym *s;
	ptrdiff_t seg;
	uint64_t last;
	size_t n;

	if (!img || !name || !offset)
		return SPOOR_E_INVAL;
	n = syms_upto(img, addr);
	s = sym_covering(img, n, addr);
	if (!s) {
		seg = seg_find(img, addr);
		if (seg < 0 || !n || !img->syms[n - 1].reach)
			return SPOOR_E_NOT_FOUND;
		last = img->syms[n - 1].reach - 1;
		if (last < img->segs[seg].start)
			return SPOOR_E_NOT_FOUND;
		s = sym_covering(img, n, last);
		if (!s)
			return SPOOR_E_NOT_FOUND;
	}
	*name = s->name;
	*offset = addr - s->addr;
	return 0;
}

/* Returns the number of executable segments (image.h). */
size_t spoor_image_segment_count(const struct spoor_image *img)
{
	return img ? img->nsegs : 0;
}

/* Gives the range of executable segment @i (image.h). */
int spoor_image_segment_at(const struct spoor_image *img, size_t i, uint64_t *start,
			   uint64_t *end)
{
	if (!img || !start || !end || i >= img->nsegs)
		return SPOOR_E_INVAL;
	*start = img->segs[i].start;
	*end = img->segs[i].end;
	return 0;
}

size_t spoor_image_symbol_count(const struct spoor_image *img)
{
	return img ? img->nsyms : 0;
}

int spoor_image_symbol_at(const struct spoor_image *img, size_t i, struct spoor_image_sym *out)
{
	const struct image_sym *s;

	if (!img || !out || i >= img->nsyms)
		return SPOOR_E_INVAL;
	s = &img->syms[i];
	out->addr = s->addr;
	out->end = s->end;
	out->name = s->name;
	out->code = seg_find(img, s->addr) >= 0;
	out->kind = s->kind;
	return 0;
}

/* Returns 1 when the debug sections of @elf decompress to a sane size. */
static int debug_sections_sane(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Chdr ch;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return 0;
		if (!(sh.sh_flags & SHF_COMPRESSED))
			continue;
		if (!gelf_getchdr(scn, &ch) || ch.ch_size > MAX_DEBUG_SECTION)
			return 0;
	}
	return 1;
}

/* Returns 1 when the file behind @src is still the one that was loaded. */
static int src_unchanged(const struct image_src *src, const struct stat *st)
{
	return st->st_dev == src->st.st_dev && st->st_ino == src->st.st_ino &&
	       st->st_size == src->st.st_size &&
	       st->st_mtim.tv_sec == src->st.st_mtim.tv_sec &&
	       st->st_mtim.tv_nsec == src->st.st_mtim.tv_nsec;
}

/* Reads the whole file of @src, if unchanged since it was loaded; returns 0 or -1. */
static int src_read_file(struct image_src *src)
{
	struct stat st;
	int fd, ret = -1;

	fd = open(src->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !src_unchanged(src, &st) ||
	    (uint64_t)st.st_size > SIZE_MAX - FILE_PAD)
		goto out;
	src->file = calloc(1, (size_t)st.st_size + FILE_PAD);
	if (src->file && !read_at(fd, src->file, (size_t)st.st_size, 0))
		ret = 0;
out:
	close(fd);
	return ret;
}

/* Opens the DWARF of @src on first use; returns it, or NULL if it has none. */
static Dwarf *src_dwarf(struct image_src *src)
{
	if (src->dwarf_state != DWARF_UNTRIED)
		return src->dwarf;
	src->dwarf_state = DWARF_FAILED;
	if (src_read_file(src))
		goto fail;
	src->elf = elf_memory((char *)src->file, (size_t)src->st.st_size);
	if (!src->elf || !debug_sections_sane(src->elf))
		goto fail;
	src->dwarf = dwarf_begin_elf(src->elf, DWARF_C_READ, NULL);
	if (!src->dwarf)
		goto fail;
	src->dwarf_state = DWARF_OPEN;
	return src->dwarf;
fail:
	src_close_dwarf(src);
	return NULL;
}

/* Finds the compilation unit of @dwarf covering @addr into @cu; returns 0 or -1. */
static int find_cu(Dwarf *dwarf, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die subdie;
	uint8_t unit_type;

	if (dwarf_addrdie(dwarf, addr, cu))
		return 0;
	/* No (or incomplete) .debug_aranges: ask every unit. */
	while (dwarf_get_units(dwarf, unit, &unit, NULL, &unit_type, cu, &subdie) == 0) {
		if (dwarf_haspc(cu, addr) > 0)
			return 0;
	}
	return -1;
}

/* Slot of @raw in a table of @cap (a power of 2) joined names. */
static size_t joined_slot(const char *raw, size_t cap)
{
	return (size_t)(((uintptr_t)raw * UINT64_C(0x9e3779b97f4a7c15)) >> 24) & (cap - 1);
}

/* Doubles the joined-name table of @src; returns false when out of memory. */
static bool joined_grow(struct image_src *src)
{
	size_t cap = src->joined_cap ? 2 * src->joined_cap : 64;
	struct joined_name *t = calloc(cap, sizeof(*t));

	if (!t)
		return false;
	for (size_t i = 0; i < src->joined_cap; i++) {
		size_t j;

		if (!src->joined[i].raw)
			continue;
		j = joined_slot(src->joined[i].raw, cap);
		while (t[j].raw)
			j = (j + 1) & (cap - 1);
		t[j] = src->joined[i];
	}
	free(src->joined);
	src->joined = t;
	src->joined_cap = cap;
	return true;
}

/*
 * The path of source file @name of unit @cu as addr2line gives it: a
 * relative name joined to the unit's compilation directory (so that files
 * of units built in different directories stay apart); @name itself when
 * absolute, without a directory, or when out of memory.
 */
static const char *join_comp_dir(struct image_src *src, Dwarf_Die *cu, const char *name)
{
	Dwarf_Attribute attr;
	const char *dir;
	size_t j;
	char *path;

	if (name[0] == '/')
		return name;
	if (2 * (src->njoined + 1) > src->joined_cap && !joined_grow(src))
		return name;
	j = joined_slot(name, src->joined_cap);
	while (src->joined[j].raw) {
		if (src->joined[j].raw == name)
			return src->joined[j].path;
		j = (j + 1) & (src->joined_cap - 1);
	}
	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	if (!dir || !dir[0])
		return name;
	path = malloc(strlen(dir) + strlen(name) + 2);
	if (!path)
		return name;
	sprintf(path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	src->joined[j].raw = name;
	src->joined[j].path = path;
	src->njoined++;
	return path;
}

/*
 * The line table row of @addr in unit @cu, as GDB takes it: of the rows at
 * the highest address at or below it, the last that begins a statement,
 * else the last (rows at one address with increasing views leave the
 * earlier lines empty: the instruction is the last one's); NULL past the
 * end of its sequence or when there is none.
 */
static Dwarf_Line *last_row_at(Dwarf_Die *cu, uint64_t addr)
{
	Dwarf_Line *dl, *pick = NULL;
	Dwarf_Lines *lines;
	Dwarf_Addr a, at;
	size_t n, lo = 0, hi;
	bool flag;

	if (dwarf_getsrclines(cu, &lines, &n) || !n)
		return NULL;
	/* lo = the number of rows at or below addr (libdw sorts them by address) */
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		dl = dwarf_onesrcline(lines, mid);
		if (!dl || dwarf_lineaddr(dl, &a))
			return NULL;
		if (a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !(dl = dwarf_onesrcline(lines, lo - 1)) || dwarf_lineaddr(dl, &at))
		return NULL;
	for (size_t i = lo; i-- > 0;) {
		dl = dwarf_onesrcline(lines, i);
		if (!dl || dwarf_lineaddr(dl, &a) || a != at)
			break;
		if (dwarf_lineendsequence(dl, &flag) || flag)
			continue;	/* a sequence ending here; another may begin here */
		if (!pick)
			pick = dl;
		if (!dwarf_linebeginstatement(dl, &flag) && flag)
			return dl;
	}
	return pick;
}

/*
 * The ELF source of @addr and its compilation unit: sets *@src, @cu and
 * *@link (the address before the load offset).  Returns 0, or
 * SPOOR_E_NOT_FOUND (no ELF with DWARF covers @addr).
 */
static int addr_unit(struct spoor_image *img, uint64_t addr, struct image_src **src,
		     Dwarf_Die *cu, uint64_t *link)
{
	ptrdiff_t i = seg_find(img, addr);
	Dwarf *dwarf;

	if (i < 0 || !img->segs[i].src->is_elf)
		return SPOOR_E_NOT_FOUND;
	*src = img->segs[i].src;
	*link = addr - (uint64_t)(*src)->offset;
	dwarf = src_dwarf(*src);
	if (!dwarf || find_cu(dwarf, *link, cu))
		return SPOOR_E_NOT_FOUND;
	return 0;
}

int spoor_image_line(struct spoor_image *img, uint64_t addr, const char **file, int *line)
{
	struct image_src *src;
	Dwarf_Line *dl;
	Dwarf_Die cu;
	const char *name;
	uint64_t link_addr;
	int lineno;

	if (!img || !file || !line)
		return SPOOR_E_INVAL;
	if (addr_unit(img, addr, &src, &cu, &link_addr))
		return SPOOR_E_NOT_FOUND;
	dl = last_row_at(&cu, link_addr);
	if (!dl || dwarf_lineno(dl, &lineno) || lineno <= 0)
		return SPOOR_E_NOT_FOUND;
	name = dwarf_linesrc(dl, NULL, NULL);
	if (!name)
		return SPOOR_E_NOT_FOUND;
	*file = join_comp_dir(src, &cu, name);
	*line = lineno;
	return 0;
}

int spoor_image_func_line(struct spoor_image *img, uint64_t addr, const char **file, int *line)
{
	struct image_src *src;
	Dwarf_Die cu, die;
	Dwarf_Addr low;
	const char *name;
	uint64_t link_addr;
	int ret;

	if (!img || !file || !line)
		return SPOOR_E_INVAL;
	if (addr_unit(img, addr, &src, &cu, &link_addr) || dwarf_child(&cu, &die))
		return SPOOR_E_NOT_FOUND;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram || dwarf_lowpc(&die, &low) ||
		    low != link_addr)
			continue;
		name = dwarf_decl_file(&die);
		if (!name || dwarf_decl_line(&die, line) || *line <= 0)
			return SPOOR_E_NOT_FOUND;
		*file = join_comp_dir(src, &cu, name);
		return 0;
	} while ((ret = dwarf_siblingof(&die, &die)) == 0);
	return SPOOR_E_NOT_FOUND;
}

void spoor_image_describe(const struct spoor_image *img, uint64_t addr, char *buf, size_t size)
{
	ptrdiff_t i;

	if (!buf || !size)
		return;
	i = img ? seg_find(img, addr) : -1;
	if (i < 0)
		snprintf(buf, size, "no image covers 0x%" PRIx64, addr);
	else
		snprintf(buf, size, SEG_FMT, SEG_ARGS(&img->segs[i]));
}
