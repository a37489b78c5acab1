# Install Habitto: 'make install' builds the static release build and installs every
# executable of the package (not the benchmark), the themes, the man page and the bash, zsh
# and fish completions under $(DESTDIR)$(PREFIX); 'make uninstall' removes exactly those.
#   sudo make install                      # into /usr/local
#   make install PREFIX=$HOME/.local       # for one user, no root
#   make install DESTDIR=/tmp/pkg PREFIX=/usr   # staged, for a package
# BUILD=debug builds the debug configuration instead (quicker); BUILT=DIR installs the
# executables already built in DIR and builds nothing (the tests use it).
#
# Packages of the same files, from the same build (a build already made is reused):
#   make deb     # habitto_VERSION_ARCH.deb: sudo dpkg -i it, sudo dpkg -r habitto removes it
#   make dist    # habitto-VERSION-ARCH.tar.gz, with install.sh (--prefix DIR, --uninstall)
# MAINTAINER='Name <address>' names the package's maintainer.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
BUILD ?= release
ifeq ($(BUILD),debug)
SWIFT_BUILD_FLAGS ?= -c debug
else
SWIFT_BUILD_FLAGS ?= -c release --static-swift-stdlib --disable-local-rpath
endif

bindir := $(DESTDIR)$(PREFIX)/bin
themedir := $(DESTDIR)$(PREFIX)/share/habitto/themes
mandir := $(DESTDIR)$(PREFIX)/share/man/man1
bashdir := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
# Debian's zsh looks in /usr/share/zsh/vendor-completions, not /usr/share/zsh/site-functions.
ZSHDIR ?= $(PREFIX)/share/zsh/site-functions
zshdir := $(DESTDIR)$(ZSHDIR)
fishdir := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

# Every executable of Package.swift (each executable target is a product) but the
# benchmark, habitto-bench.
target_names := s/.*[.]executableTarget[(]name: "\([^"]*\)".*/\1/p
executables := $(shell sed -n '$(target_names)' Package.swift | grep -v -e '-bench$$')
themes := $(notdir $(wildcard Themes/*.theme))
generated := .build/install

.PHONY: all build install uninstall deb dist
all: build

build:
ifeq ($(BUILT),)
	@set -e; for p in $(executables); do $(SWIFT) build $(SWIFT_BUILD_FLAGS) --product $$p; done
endif

install: build
	@set -e; bin="$(BUILT)"; [ -n "$$bin" ] || bin="$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)"; \
	mkdir -p $(generated); \
	"$$bin/habitto" __man > $(generated)/habitto.1; \
	"$$bin/habitto" completions bash > $(generated)/habitto.bash; \
	"$$bin/habitto" completions zsh > $(generated)/_habitto; \
	"$$bin/habitto" completions fish > $(generated)/habitto.fish; \
	install -d "$(bindir)" "$(themedir)" "$(mandir)" "$(bashdir)" "$(zshdir)" "$(fishdir)"; \
	for p in $(executables); do install -m 755 "$$bin/$$p" "$(bindir)/$$p"; echo "installed $(bindir)/$$p"; done; \
	for t in $(themes); do install -m 644 "Themes/$$t" "$(themedir)/$$t"; done; \
	echo "installed $(words $(themes)) themes in $(themedir)"; \
	install -m 644 $(generated)/habitto.1 "$(mandir)/habitto.1"; \
	install -m 644 $(generated)/habitto.bash "$(bashdir)/habitto"; \
	install -m 644 $(generated)/_habitto "$(zshdir)/_habitto"; \
	install -m 644 $(generated)/habitto.fish "$(fishdir)/habitto.fish"; \
	echo "installed $(mandir)/habitto.1 and the bash, zsh and fish completions"

uninstall:
	@for p in $(executables); do rm -f "$(bindir)/$$p"; done; \
	for t in $(themes); do rm -f "$(themedir)/$$t"; done; \
	rm -f "$(mandir)/habitto.1" "$(bashdir)/habitto" "$(zshdir)/_habitto" "$(fishdir)/habitto.fish"; \
	rmdir "$(themedir)" "$(DESTDIR)$(PREFIX)/share/habitto" 2>/dev/null || true; \
	echo "removed Habitto from $(DESTDIR)$(PREFIX)"

# The packages: each stages 'make install' in a folder of its own under .build/package (and
# generates the man page and completions there), then deb.sh adds what Debian asks for and
# builds the .deb, or the folder and install.sh are packed into the tarball.
version := $(shell sed -n 's/.*static let current = "\([^"]*\)".*/\1/p' Sources/HabitCore/Version.swift)
arch := $(shell dpkg --print-architecture 2>/dev/null || uname -m)
MAINTAINER ?= Habitto maintainers <habitto@users.noreply.github.com>
package := .build/package
deb_name := habitto_$(version)_$(arch)
dist_name := habitto-$(version)-$(arch)

deb:
	@rm -rf $(package)/$(deb_name)
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(package)/$(deb_name) PREFIX=/usr \
	  ZSHDIR=/usr/share/zsh/vendor-completions generated=$(package)/$(deb_name).generated
	@sh build/package/deb.sh $(package)/$(deb_name) "$(version)" "$(arch)" "$(MAINTAINER)" $(deb_name).deb

dist:
	@rm -rf $(package)/$(dist_name)
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(package)/$(dist_name) PREFIX= \
	  generated=$(package)/$(dist_name).generated
	@install -m 755 build/package/install.sh $(package)/$(dist_name)/install.sh
	@tar -C $(package) --owner=0 --group=0 --numeric-owner --sort=name -cf $(package)/$(dist_name).tar $(dist_name)
	@gzip -9nc $(package)/$(dist_name).tar > $(dist_name).tar.gz && rm $(package)/$(dist_name).tar
	@echo "built $(dist_name).tar.gz"
