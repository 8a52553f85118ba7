package bundle

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/smallstep/pkcs7"
	"golang.org/x/crypto/cryptobyte"
	cbasn1 "golang.org/x/crypto/cryptobyte/asn1"
)

// The signature block `mcpb sign` appends to the zip: the header, the
// length of the DER PKCS#7 SignedData (uint32, little endian), the
// SignedData (detached, over every byte before the header), the footer.
var (
	sigHeader = []byte("MCPB_SIG_V1")
	sigFooter = []byte("MCPB_SIG_END")
)

// Signature states.
const (
	Unsigned = "unsigned"
	// Signed: the signature verifies and its certificate chains to a root
	// the system trusts for code signing.
	Signed = "signed"
	// SelfSigned: the signature verifies with a certificate that signed
	// itself, so it says who signed only as far as the user trusts that
	// certificate (compare its fingerprint).
	SelfSigned = "self-signed"
	// Untrusted: the signature verifies, but its certificate chains to no
	// root the system trusts.
	Untrusted = "untrusted"
)

// Signature is what a bundle's signature says. A signature that does not
// verify is not a state: the bundle is refused.
type Signature struct {
	Status      string    `json:"status"`              // Unsigned, Signed, SelfSigned or Untrusted
	Publisher   string    `json:"publisher,omitempty"` // the certificate's subject common name
	Issuer      string    `json:"issuer,omitempty"`
	Fingerprint string    `json:"fingerprint,omitempty"` // SHA-256 of the certificate, hex
	NotBefore   time.Time `json:"notBefore,omitzero"`
	NotAfter    time.Time `json:"notAfter,omitzero"`
}

// verifySignature splits data into the zip and its signature block and
// verifies the block: what `mcpb verify` does (PKCS#7 over the content,
// the messageDigest attribute against the content's SHA-256), except that
// a block that does not verify refuses the bundle instead of reading as
// unsigned. A file with no block is unsigned.
func verifySignature(data []byte) (content []byte, sig Signature, err error) {
	if !bytes.HasSuffix(data, sigFooter) {
		return data, Signature{Status: Unsigned}, nil
	}
	end := len(data) - len(sigFooter)
	start := bytes.LastIndex(data[max(0, end-MaxSignatureBytes-len(sigHeader)-4):end], sigHeader)
	if start < 0 {
		return nil, Signature{}, invalid("the file ends with a signature footer and has no signature header within %d bytes (MaxSignatureBytes)", MaxSignatureBytes)
	}
	start += max(0, end-MaxSignatureBytes-len(sigHeader)-4)
	lenAt := start + len(sigHeader)
	if lenAt+4 > end {
		return nil, Signature{}, invalid("the signature block is cut short")
	}
	n := int(binary.LittleEndian.Uint32(data[lenAt : lenAt+4]))
	if lenAt+4+n != end {
		return nil, Signature{}, invalid("the signature block's length (%d) does not match its size (%d)", n, end-lenAt-4)
	}
	content = data[:start]
	p7, err := pkcs7.Parse(data[lenAt+4 : end])
	if err != nil {
		return nil, Signature{}, invalid("the signature is not PKCS#7 signed data: %v", err)
	}
	p7.Content = content
	cert := p7.GetOnlySigner()
	if cert == nil {
		return nil, Signature{}, invalid("the signature has more than one signer, or none")
	}
	if err := verifyPKCS7(p7, data[lenAt+4:end], content, cert); err != nil {
		return nil, Signature{}, invalid("the signature does not verify (the bundle was changed after it was signed, or the signature is forged): %v", err)
	}
	fp := sha256.Sum256(cert.Raw)
	sig = Signature{
		Publisher: cert.Subject.CommonName, Issuer: cert.Issuer.CommonName, Fingerprint: hex.EncodeToString(fp[:]),
		NotBefore: cert.NotBefore, NotAfter: cert.NotAfter,
	}
	inter := x509.NewCertPool()
	for _, c := range p7.Certificates {
		if c != cert {
			inter.AddCert(c)
		}
	}
	_, chainErr := cert.Verify(x509.VerifyOptions{Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}})
	switch {
	case chainErr == nil:
		sig.Status = Signed
	case bytes.Equal(cert.RawSubject, cert.RawIssuer) && cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature) == nil:
		sig.Status = SelfSigned
	default:
		sig.Status = Untrusted
	}
	return content, sig, nil
}

// verifyPKCS7 verifies p7 (parsed from der) over its content. With
// signed attributes it checks the signature over their encoding as the
// file carries it (RFC 5652 5.4, with the SET tag), not over pkcs7's
// re-encoding of them: node-forge (what `mcpb sign` uses) writes them in
// an order its re-encoding does not reproduce, and every such signature
// would read as forged.
func verifyPKCS7(p7 *pkcs7.PKCS7, der, content []byte, cert *x509.Certificate) error {
	si, err := parseSignerInfo(der)
	if err != nil {
		return err
	}
	if si.attrs == nil {
		return p7.Verify()
	}
	hash, ok := digestByOID[si.digestOID.String()]
	if !ok {
		return fmt.Errorf("digest algorithm %v is not supported", si.digestOID)
	}
	h := hash.New()
	h.Write(content)
	digest, err := messageDigest(si.attrs)
	if err != nil {
		return err
	}
	if !bytes.Equal(digest, h.Sum(nil)) {
		return errors.New("the content's digest does not match the signed messageDigest")
	}
	alg, err := signatureAlgorithm(si.sigOID, hash, cert)
	if err != nil {
		return err
	}
	var b cryptobyte.Builder
	b.AddASN1(cbasn1.SET, func(b *cryptobyte.Builder) { b.AddBytes(si.attrs) })
	signed, err := b.Bytes()
	if err != nil {
		return err
	}
	return cert.CheckSignature(alg, signed, si.signature)
}

type signerInfo struct {
	digestOID, sigOID asn1.ObjectIdentifier
	attrs             []byte // the signed attributes' contents, nil without
	signature         []byte
}

var digestByOID = map[string]crypto.Hash{
	"2.16.840.1.101.3.4.2.1": crypto.SHA256,
	"2.16.840.1.101.3.4.2.2": crypto.SHA384,
	"2.16.840.1.101.3.4.2.3": crypto.SHA512,
}

// parseSignerInfo reads the only SignerInfo of a ContentInfo holding
// SignedData.
func parseSignerInfo(der []byte) (signerInfo, error) {
	bad := errors.New("malformed PKCS#7 SignedData")
	in := cryptobyte.String(der)
	var ci, sd, signerInfos, si cryptobyte.String
	var skip cryptobyte.String
	if !in.ReadASN1(&ci, cbasn1.SEQUENCE) ||
		!ci.SkipASN1(cbasn1.OBJECT_IDENTIFIER) ||
		!ci.ReadASN1(&sd, cbasn1.Tag(0).Constructed().ContextSpecific()) ||
		!sd.ReadASN1(&sd, cbasn1.SEQUENCE) ||
		!sd.SkipASN1(cbasn1.INTEGER) || !sd.SkipASN1(cbasn1.SET) || !sd.SkipASN1(cbasn1.SEQUENCE) ||
		!sd.SkipOptionalASN1(cbasn1.Tag(0).Constructed().ContextSpecific()) ||
		!sd.SkipOptionalASN1(cbasn1.Tag(1).Constructed().ContextSpecific()) ||
		!sd.ReadASN1(&signerInfos, cbasn1.SET) ||
		!signerInfos.ReadASN1(&si, cbasn1.SEQUENCE) || !signerInfos.Empty() {
		return signerInfo{}, bad
	}
	var out signerInfo
	var digestAlg, sigAlg cryptobyte.String
	var attrs cryptobyte.String
	var hasAttrs bool
	if !si.SkipASN1(cbasn1.INTEGER) || !si.ReadAnyASN1(&skip, nil) ||
		!si.ReadASN1(&digestAlg, cbasn1.SEQUENCE) || !digestAlg.ReadASN1ObjectIdentifier(&out.digestOID) ||
		!si.ReadOptionalASN1(&attrs, &hasAttrs, cbasn1.Tag(0).Constructed().ContextSpecific()) ||
		!si.ReadASN1(&sigAlg, cbasn1.SEQUENCE) || !sigAlg.ReadASN1ObjectIdentifier(&out.sigOID) ||
		!si.ReadASN1Bytes(&out.signature, cbasn1.OCTET_STRING) {
		return signerInfo{}, bad
	}
	if hasAttrs {
		out.attrs = attrs
	}
	return out, nil
}

// messageDigest is the value of the messageDigest attribute.
func messageDigest(attrs []byte) ([]byte, error) {
	oid := asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 4}
	in := cryptobyte.String(attrs)
	for !in.Empty() {
		var attr, values cryptobyte.String
		var typ asn1.ObjectIdentifier
		if !in.ReadASN1(&attr, cbasn1.SEQUENCE) || !attr.ReadASN1ObjectIdentifier(&typ) || !attr.ReadASN1(&values, cbasn1.SET) {
			return nil, errors.New("malformed signed attributes")
		}
		if typ.Equal(oid) {
			var d []byte
			if !values.ReadASN1Bytes(&d, cbasn1.OCTET_STRING) {
				return nil, errors.New("malformed messageDigest attribute")
			}
			return d, nil
		}
	}
	return nil, errors.New("the signed attributes have no messageDigest")
}

// signatureAlgorithm maps a SignerInfo's signature algorithm (RSA or
// ECDSA, alone or with its digest) and digest to x509's.
func signatureAlgorithm(oid asn1.ObjectIdentifier, hash crypto.Hash, cert *x509.Certificate) (x509.SignatureAlgorithm, error) {
	rsa := map[crypto.Hash]x509.SignatureAlgorithm{crypto.SHA256: x509.SHA256WithRSA, crypto.SHA384: x509.SHA384WithRSA, crypto.SHA512: x509.SHA512WithRSA}
	ec := map[crypto.Hash]x509.SignatureAlgorithm{crypto.SHA256: x509.ECDSAWithSHA256, crypto.SHA384: x509.ECDSAWithSHA384, crypto.SHA512: x509.ECDSAWithSHA512}
	switch oid.String() {
	case "1.2.840.113549.1.1.1", "1.2.840.113549.1.1.11", "1.2.840.113549.1.1.12", "1.2.840.113549.1.1.13":
		return rsa[hash], nil
	case "1.2.840.10045.2.1", "1.2.840.10045.4.3.2", "1.2.840.10045.4.3.3", "1.2.840.10045.4.3.4":
		return ec[hash], nil
	}
	return 0, fmt.Errorf("signature algorithm %v is not supported (RSA or ECDSA)", oid)
}
