/* fuzz_crypto_account.h - the bot account of fuzz_matrix_crypto's seed corpus,
 * written with it by gen_crypto_corpus.c (a pickle under the key below). */
#ifndef TESTS_MATRIX_FUZZ_CRYPTO_ACCOUNT_H
#define TESTS_MATRIX_FUZZ_CRYPTO_ACCOUNT_H
#define FUZZ_CRYPTO_BOT        "@illegal:localhost"
#define FUZZ_CRYPTO_DEVICE     "FUZZDEVICE"
#define FUZZ_CRYPTO_PICKLE_KEY "fuzz-pickle-key-0123456789"
#define FUZZ_CRYPTO_ACCOUNT                                                                        \
    "5Rx/hC/VtB1OIODZFtylhPpY4r2g5LKsFNtxmQZQCv524bT6KURcT+ZoGXXtuKkwS9C53DMCzJ4/99piO8MucgpZlP"   \
    "IfuYmWiiLAh0TkLYPiO6axfAfwNYw4gDET/ZbqgK4FViyxvTU717B0OwE531XARgwCG7H4Z/0uM59BrkEgndgxuESj"   \
    "Qyo8vuitBe7CU6Uakdj1kJfXPcA3d7Lr4P+vj/C7nx7V/IFqur+/WkWqFR459mXG0sEBBBo/FfK2uLH1c3KbqgBMOh"   \
    "p0Xogi9bwP9PgfJOGFJh6F2czMVxHbqneLqU1+qOdX0qbqmGWemjsdFDChCJ44hI81lBz9RAfZiACD5eJ2WBWdQhbu"   \
    "2yMChq7yxYiUlroyg2WEwLJxUM5bbMmi4rX+KkVj7pFT3DECZADiAdjeUU6QEdRQKPsfXcCz4lqbIgZKEXU287ykj1"   \
    "pSDwYxrLhHWQZTOeNxKIfY1jdIEK1wasGpcsicL8h2wzUS/DuGx24wv9oMetcX5Mpcwr+nwUSYhEF+yOQmFNMvfnw1"   \
    "jkR8yMUlmGVOmkYVrMNKJYsMqcp8KIdmi1LTxfRV1QhiupC+EtjX/9cAUDo/gL8Lm3KEcEoIdI1jvodc66/i5KeuBE"   \
    "+Jjsje38C2LYFtLanMlSpbVSXUjdwwOGxMOeIkRdfKdu7fIvNbTm7k3PwclvcEPjd1ZpignsrHO4NNegciW2UzkoD7"   \
    "4E0e+qyQ2YgWVMJsXIwFV8JA+Wpi4jGa8N/o1sR/R9XfFqf1g1wlOGS/8t763pZrYvIzHHK+8zYZGFZmnjGo/nhlEg"   \
    "6xKp8tr7rFIhS2Qm+2mp9vas1Dvt3fMmdYSYhLd0teFzPLdwMy8EC8Ny8cj2KGvRrmrzAmvVREFkdRk0wJVLSdPq4H"   \
    "dt3NYRICzteavMMZEpWO5L2UNBdrikdxoW5St5EOyVB2JYDIJ6UO7Y0NWE15FKE7e083NpTz/SRFwXjNrPZ7cBefB3"   \
    "tg/TrLd2UvDLnDuG+9iku7/eDWDA3pepq2CuzUo8lK0ED7p0iSbqZPkee6N1iawfQOW/ZtZkqYNPCqrbt8vX2CZMiH"   \
    "b1xjCmbJjxGifD8ZcCH7yuKRUPEJqgzeLKYS3G1v8gwHoInxlPp3qScpgHy8YC2nGeD1PZ8bWwHRa1Tyq8X4w5CIHE"   \
    "jq9WN4YOrs52nzg/kIiCe/JWLdieMxeJNzgHk3PmDK2E1OkG+Q77GfDxfNMMhDfTLrLWWkWJ+c+ezKp8LUgBF3HT+z"   \
    "FtWxdhPGvpF1IWJTlicnHC9IZkcg9K0TLoYhoPOZKC56QaZ2dXFVc2v0nYDhFb+RqU1DHHAj715JVwdPhUU+A2mGrW"   \
    "uYlSMeWVT1TWzKuL25yWHJiev4q5jEaBXiWt5dA3HpbDEplDjhhDlOoZYreQXpPnSZoVz3PaD+wQ/fN0vi1vIS6YGr"   \
    "16D0DX6+Gmd2AXFmXUdaE+z+eNRLhCptNY2Xd+OHnolnp5GIvFCLWavzYjwaS+JS7fs98Gzp7O6sjRMny5ax3NiXsY"   \
    "4M28LVhF8N/x+h3sXTrowWFbYBuxJRkE3PGC6Cg7SOIX1zbngWq7EitN1sezctdPwgRHoZDkyKrC6TE5j0LiKrdhKk"   \
    "Fy1eLRJMAa68CxAVExoQ5LHrl5y90FffMUBYZ8vjgtgJRfn5xmBGd5ga1f1BvoWYSYuFqjkoHalbEIobwhI7+L12Jq"   \
    "hAEGXNpw"
#endif
